/*
 * Replays a cross-check trace (docs/algorithm.md, "Cross-check traces")
 * through MsfcQueueDisc: packets go straight to the class and flow the trace
 * names, CoDel is configured never to act, and every dequeue is reported.
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef MSFC_TRACE_REPLAY_H
#define MSFC_TRACE_REPLAY_H

#include <string>
#include <vector>

namespace ns3
{

/**
 * Replay a trace file.
 * @param path the .trace file
 * @param output one line per dequeue: "<class> <flow> <len>" or "-"
 * @param error set when the file cannot be read or is malformed
 * @return true on success
 */
bool ReplayMsfcTrace(const std::string& path, std::vector<std::string>& output, std::string& error);

} // namespace ns3

#endif /* MSFC_TRACE_REPLAY_H */
