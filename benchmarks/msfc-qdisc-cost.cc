/*
 * msfc-qdisc-cost: CPU cost of one enqueue + one dequeue in MsfcQueueDisc (the
 * thesis mode, Overload=class, Weights=exact, Inversion=prevent, Boost=on, Isolate=both:
 * every flow from a host of its own to one destination host, so the destination's load is
 * the number of flows) and FqCoDelQueueDisc with 1, 100
 * and 10000 backlogged flows (IPv4/UDP packets, real 5-tuple hashing, default
 * attributes otherwise), in two workloads: "backlogged" (below MaxSize) and
 * "overload" (MaxSize reached: every dequeue + enqueue pair adds one more
 * enqueue, which triggers an overload drop).  Prints CSV:
 *   workload,scheduler,flows,ns_per_packet,ratio_to_fqcodel
 * Each figure is the median of --reps repetitions of --ops operations.  The
 * schedulers are created by their SchedulerRegistry names.  Progress goes to
 * stderr, one line per measurement.
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/msfc-queue-disc.h"
#include "ns3/scheduler-registry.h"
#include "ns3/traffic-control-module.h"

#include <algorithm>
#include <chrono>
#include <deque>
#include <iomanip>
#include <iostream>
#include <map>
#include <vector>

using namespace ns3;

namespace
{

std::vector<Ptr<QueueDiscItem>>
MakeItems(uint32_t flows)
{
    std::vector<Ptr<QueueDiscItem>> items;
    for (uint32_t f = 0; f < flows; ++f)
    {
        for (int k = 0; k < 2; ++k)
        {
            Ptr<Packet> p = Create<Packet>(1000);
            UdpHeader udp;
            udp.SetSourcePort(10000 + f % 50000);
            udp.SetDestinationPort(5000 + f / 50000);
            p->AddHeader(udp);
            Ipv4Header h;
            h.SetSource(Ipv4Address(0x0a000000 + f));
            h.SetDestination(Ipv4Address("10.255.0.1"));
            h.SetProtocol(17);
            h.SetPayloadSize(p->GetSize());
            h.SetDscp(static_cast<Ipv4Header::DscpType>(f % 3 == 0 ? 8 : (f % 3 == 1 ? 0 : 46)));
            items.push_back(Create<Ipv4QueueDiscItem>(p, Address(), 0x0800, h));
        }
    }
    return items;
}

/// A scheduler compared: its label in the CSV, SchedulerRegistry name, MSFC attributes.
struct Variant
{
    std::string label;                                        //!< CSV name
    std::string name;                                         //!< registry name
    std::vector<std::pair<std::string, std::string>> attrs{}; //!< extra attributes
};

/// The schedulers compared; the ratios are to the first.
const std::vector<Variant> kSchedulers = {
    {"FqCoDel", "FqCoDel"},
    {"Msfc", "Msfc"},
    {"Msfc Overload=class", "Msfc", {{"Overload", "class"}}},
    {"Msfc Weights=exact", "Msfc", {{"Weights", "exact"}}},
    {"Msfc Inversion=prevent", "Msfc", {{"Inversion", "prevent"}}},
    {"Msfc Isolate=both", "Msfc", {{"Isolate", "both"}}},
    {"Msfc Boost=on", "Msfc", {{"Boost", "on"}}},
};

double
Measure(const Variant& v, uint32_t flows, uint64_t ops, bool overload)
{
    auto items = MakeItems(flows);
    // No device here to take the MTU from: every scheduler uses a 1500-byte quantum (the
    // registry gives it to ns-3's flow-queue schedulers, MSFC takes it as an attribute).
    // Overload: MaxSize is the number of packets made, so one more enqueue is an overload.
    Ptr<QueueDisc> q = SchedulerRegistry::Create(
        v.name,
        overload ? QueueSize(QueueSizeUnit::PACKETS, items.size()) : QueueSize("100000p"));
    if (DynamicCast<MsfcQueueDisc>(q))
    {
        q->SetAttribute("Quantum", UintegerValue(1500));
    }
    for (const auto& [attr, value] : v.attrs)
    {
        q->SetAttribute(attr, StringValue(value));
    }
    q->Initialize();
    // Packets not in the queue disc: the dequeued and the dropped ones, enqueued again.
    std::deque<Ptr<QueueDiscItem>> spare;
    q->TraceConnectWithoutContext("DropAfterDequeue",
                                  Callback<void, Ptr<const QueueDiscItem>, const char*>(
                                      [&spare](Ptr<const QueueDiscItem> item, const char*) {
                                          spare.push_back(ConstCast<QueueDiscItem>(item));
                                      }));
    for (auto& item : items)
    {
        q->Enqueue(item);
    }
    auto step = [&]() {
        spare.push_back(q->Dequeue());
        q->Enqueue(spare.front());
        spare.pop_front();
        if (overload && !spare.empty())
        {
            q->Enqueue(spare.front());
            spare.pop_front();
        }
    };
    // Warm up, then measure.
    for (uint64_t i = 0; i < ops / 10; ++i)
    {
        step();
    }
    auto t0 = std::chrono::steady_clock::now();
    for (uint64_t i = 0; i < ops; ++i)
    {
        step();
    }
    auto t1 = std::chrono::steady_clock::now();
    NS_ABORT_MSG_IF(q->GetNPackets() + spare.size() != items.size(),
                    "packets were lost during the benchmark");
    q->Dispose();
    return std::chrono::duration<double, std::nano>(t1 - t0).count() / ops;
}

} // namespace

int
main(int argc, char** argv)
{
    uint64_t ops = 1000000;
    uint32_t reps = 5;
    CommandLine cmd(__FILE__);
    cmd.Usage("Per-packet enqueue+dequeue cost of MSFC and FQ-CoDel.");
    cmd.AddValue("ops", "operations per repetition", ops);
    cmd.AddValue("reps", "repetitions (median is printed)", reps);
    cmd.Parse(argc, argv);

    for (const auto& v : kSchedulers)
    {
        if (!SchedulerRegistry::Find(v.name))
        {
            std::cerr << "msfc-qdisc-cost: scheduler " << v.name
                      << " is not part of this build; valid: " << SchedulerRegistry::Names()
                      << std::endl;
            return 1;
        }
    }
    const std::vector<uint32_t> flowCounts = {1, 100, 10000};
    const uint32_t total = 2 * flowCounts.size() * reps * kSchedulers.size();
    uint32_t done = 0;
    const auto start = std::chrono::steady_clock::now();

    std::cout << "workload,scheduler,flows,ns_per_packet,ratio_to_fqcodel\n";
    for (bool overload : {false, true})
    {
        const char* workload = overload ? "overload" : "backlogged";
        for (uint32_t flows : flowCounts)
        {
            std::map<std::string, std::vector<double>> samples;
            for (uint32_t r = 0; r < reps; ++r)
            {
                // Interleave the schedulers so that machine noise hits them alike.
                for (const auto& v : kSchedulers)
                {
                    samples[v.label].push_back(Measure(v, flows, ops, overload));
                    ++done;
                    double elapsed =
                        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
                            .count();
                    std::cerr << "msfc-qdisc-cost: " << done << "/" << total << " " << workload
                              << ", " << v.label << ", " << flows << " flows, repetition " << r + 1
                              << "/" << reps << ": " << samples[v.label].back() << " ns/packet ("
                              << std::fixed << std::setprecision(0) << elapsed << " s elapsed)"
                              << std::defaultfloat << std::setprecision(6) << std::endl;
                }
            }
            std::map<std::string, double> median;
            for (auto& [label, s] : samples)
            {
                std::sort(s.begin(), s.end());
                median[label] = s[s.size() / 2];
            }
            for (const auto& v : kSchedulers)
            {
                std::cout << workload << "," << v.label << "," << flows << "," << median[v.label]
                          << "," << median[v.label] / median[kSchedulers.front().label] << "\n";
            }
        }
    }
    return 0;
}
