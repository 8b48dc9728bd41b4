/*
 * Common options and setup of the seed-001 experiments (thin streams, starvation): a
 * 2 Mbps / 100 ms RTT dumbbell with a 2 x BDP bottleneck buffer, TCP NewReno with SACK and
 * an initial window of 3, 1500-byte packets.
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef MSFC_SCENARIOS_LIB_SEEDS_SEED001_H
#define MSFC_SCENARIOS_LIB_SEEDS_SEED001_H

#include "dumbbell.h"
#include "seeds-scenario.h"

#include <string>
#include <vector>

namespace seeds
{

/** The options shared by both seed-001 scenarios, in listing order. */
std::vector<Param> Seed001Params(const std::string& defaultScheduler, double minDuration);

/**
 * TCP defaults of seed 001, the random-number settings and the ns-3 pass-through values (which
 * win over the defaults, the congestion control included).
 * @param tcp the TCP congestion control (the seed: NewReno)
 */
void ConfigureSeed001(const Options& opt, TypeId tcp = TcpNewReno::GetTypeId());

/** Bottleneck limit in packets: the option, or 2 x BDP in 1500-byte packets. */
uint32_t Seed001Buffer(const Options& opt);

/** Build the seed-001 dumbbell with the chosen scheduler. */
Dumbbell BuildSeed001(const Options& opt, uint32_t pairs);

/** A TCP bulk sender (BulkSend) on sender i towards receiver i. */
void AddBulk(Dumbbell& d, uint32_t i, uint16_t port, uint8_t dscp, double start, double stop);

/** A periodic sender of `size` bytes (TCP or UDP) on sender i towards receiver i. */
void AddPeriodic(Dumbbell& d,
                 uint32_t i,
                 uint16_t port,
                 bool tcp,
                 uint32_t size,
                 Time minGap,
                 Time maxGap,
                 uint8_t dscp,
                 double start,
                 double stop,
                 Ptr<UniformRandomVariable> rng);

} // namespace seeds

#endif
