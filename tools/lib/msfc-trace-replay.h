/*
 * Replays a cross-check trace (docs/algorithm.md, "Cross-check traces")
 * through MsfcQueueDisc: packets go straight to the class and flow the trace
 * names, the simulator clock follows the trace's time steps, and every
 * decision (dequeue, CE mark, drop and its reason) is reported; a C line
 * (version 4) changes the configuration through MsfcQueueDisc::Change; an
 * auto packet (E a, version 5) goes unmarked and unclassified to its flow
 * slot, and the queue disc decides its class (attribute Auto); a packet of the
 * least-effort lane (E l) or an NQB packet (E <c>n, version 7) names its treatment
 * (MsfcQueueDisc::ExplicitTreatmentItem) beside its explicit class.
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef MSFC_TRACE_REPLAY_H
#define MSFC_TRACE_REPLAY_H

#include <istream>
#include <string>
#include <vector>

namespace ns3
{

/**
 * Replay a trace file.
 * @param path the .trace file
 * @param output one line per decision: "<class> <flow> <len>" (with " ce" when CE-marked;
 *        <class> "l" for the least-effort lane) or
 *        "-" per dequeue, "drop <reason> <class> <flow> <len>" per dropped packet, "change",
 *        "change busy" or "change invalid" per C line (version 4: MsfcQueueDisc::Change),
 *        before the overload drops the change makes
 * @param error set when the file cannot be read or is malformed
 * @return true on success
 */
bool ReplayMsfcTrace(const std::string& path, std::vector<std::string>& output, std::string& error);

/**
 * Replay a trace read from a stream.
 * @param in the trace text
 * @param name the trace's name in error messages
 * @param output as ReplayMsfcTrace()
 * @param error as ReplayMsfcTrace()
 * @return true on success
 */
bool ReplayMsfcTrace(std::istream& in,
                     const std::string& name,
                     std::vector<std::string>& output,
                     std::string& error);

} // namespace ns3

#endif /* MSFC_TRACE_REPLAY_H */
