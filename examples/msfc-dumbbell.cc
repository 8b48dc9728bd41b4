/*
 * msfc-dumbbell: TCP flows in three priority classes share a bottleneck;
 * the same traffic runs once under each scheduler given, and the program
 * prints per-class goodput, delay and losses, and MSFC's class counters.
 * The network and the experiment are the scenario library's dumbbell
 * (scenarios/lib/dumbbell.h): one host pair per flow.
 *
 *   msfc-dumbbell [--schedulers=Msfc,FqCoDel] [--duration=20] [--rate=10Mbps]
 *                 [--flowsPerClass=2] [--ratio=2] [--udpMbps=0] [--csv=FILE]
 *
 * --csv writes the same figures as tidy rows (one per scheduler and group, and one per
 * scheduler and MSFC class with its counters): what msfc bench dumbbell keeps and the docs'
 * table is made from.
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "scenarios/lib/dumbbell.h"

#include "ns3/core-module.h"
#include "ns3/msfc-queue-disc.h"
#include "ns3/scheduler-registry.h"

#include <fstream>
#include <iomanip>
#include <iostream>
#include <sstream>

using namespace ns3;
using msfc::scenario::DumbbellConfig;
using msfc::scenario::DumbbellFlow;
using msfc::scenario::DumbbellResult;
using msfc::scenario::RunDumbbell;

int
main(int argc, char** argv)
{
    std::string schedulers = "Msfc,FqCoDel";
    double duration = 20;
    std::string rate = "10Mbps";
    uint32_t flowsPerClass = 2;
    double ratio = 2;
    double udpMbps = 0;
    uint32_t run = 1;
    std::string csvPath;

    CommandLine cmd(__FILE__);
    cmd.Usage("Compare schedulers on a dumbbell with TCP flows in three priority classes.");
    cmd.AddValue("schedulers", "comma-separated scheduler names", schedulers);
    cmd.AddValue("duration", "simulated seconds (> 3)", duration);
    cmd.AddValue("rate", "bottleneck rate", rate);
    cmd.AddValue("flowsPerClass", "TCP flows in each class (1..100)", flowsPerClass);
    cmd.AddValue("ratio", "MSFC Ratio", ratio);
    cmd.AddValue("udpMbps", "rate of an unresponsive UDP flow in class 0 (0 = none)", udpMbps);
    cmd.AddValue("run", "RNG run number", run);
    cmd.AddValue("csv", "also write the figures as tidy CSV rows to this file", csvPath);
    cmd.Parse(argc, argv);

    if (duration <= 3 || flowsPerClass < 1 || flowsPerClass > 100)
    {
        std::cerr << "msfc-dumbbell: need duration > 3 and flowsPerClass in 1..100\n";
        return 2;
    }
    Config::SetDefault("ns3::MsfcQueueDisc::Ratio", DoubleValue(ratio));
    std::ofstream csv;
    if (!csvPath.empty())
    {
        csv.open(csvPath);
        if (!csv)
        {
            std::cerr << "msfc-dumbbell: cannot write " << csvPath << "\n";
            return 2;
        }
        csv << "scheduler,kind,name,goodput_mbps,share,delay_ms,lost_packets,enqueued_packets,"
               "dequeued_packets,dequeued_bytes,codel_drops,overload_drops,ecn_marks\n";
        csv << std::setprecision(9);
    }

    DumbbellConfig cfg;
    cfg.links.bottleneckRate = DataRate(rate);
    cfg.duration = Seconds(duration);
    cfg.warmup = Seconds(std::min(5.0, duration / 4));
    cfg.rngRun = run;
    for (uint32_t c = 0; c < 3; ++c)
    {
        for (uint32_t i = 0; i < flowsPerClass; ++i)
        {
            DumbbellFlow f;
            f.dscp = MsfcQueueDisc::DscpForDefaultClass(c);
            f.label = "class" + std::to_string(c);
            cfg.flows.push_back(f);
        }
    }
    if (udpMbps > 0)
    {
        DumbbellFlow u;
        u.tcp = false;
        u.rate = DataRate(static_cast<uint64_t>(udpMbps * 1e6));
        u.packetSize = 1400;
        u.dscp = MsfcQueueDisc::DscpForDefaultClass(0);
        u.label = "udp";
        cfg.flows.push_back(u);
    }

    std::cout << "Dumbbell: " << rate << " bottleneck, " << flowsPerClass
              << " TCP flow(s) per class (class 0 = CS1, 1 = best effort, 2 = CS2)"
              << (udpMbps > 0 ? ", plus UDP in class 0" : "") << ", " << duration
              << " s, MSFC Ratio " << ratio << "\n";
    std::stringstream ss(schedulers);
    std::string name;
    while (std::getline(ss, name, ','))
    {
        if (!SchedulerRegistry::Find(name))
        {
            std::cerr << "msfc-dumbbell: unknown scheduler '" << name
                      << "'; valid: " << SchedulerRegistry::Names() << "\n";
            return 2;
        }
        cfg.scheduler = name;
        DumbbellResult r = RunDumbbell(cfg);
        std::cout << "\n== " << name << " (" << std::fixed << std::setprecision(1) << r.wallSeconds
                  << " s wall, " << r.events << " events)\n";
        std::cout << std::setw(8) << "group" << std::setw(14) << "goodput Mbps" << std::setw(10)
                  << "share" << std::setw(14) << "delay ms" << std::setw(10) << "lost\n";
        std::map<std::string, std::tuple<double, double, uint64_t, uint64_t>> groups;
        double total = 0;
        for (size_t i = 0; i < cfg.flows.size(); ++i)
        {
            auto& [gp, delaySum, rx, lost] = groups[cfg.flows[i].label];
            gp += r.flows[i].goodputMbps;
            delaySum += r.flows[i].meanDelayMs * r.flows[i].rxPackets;
            rx += r.flows[i].rxPackets;
            lost += r.flows[i].lostPackets;
            total += r.flows[i].goodputMbps;
        }
        for (const auto& [label, g] : groups)
        {
            auto [gp, delaySum, rx, lost] = g;
            std::cout << std::setw(8) << label << std::setw(14) << std::setprecision(3) << gp
                      << std::setw(10) << std::setprecision(3) << gp / total << std::setw(14)
                      << std::setprecision(1) << (rx ? delaySum / rx : 0) << std::setw(9) << lost
                      << "\n";
            if (csv.is_open())
            {
                csv << name << ",group," << label << "," << gp << "," << gp / total << ","
                    << (rx ? delaySum / rx : 0) << "," << lost << ",,,,,,\n";
            }
        }
        if (!r.msfcClasses.empty())
        {
            std::cout << "MSFC class counters at the bottleneck:\n"
                      << std::setw(8) << "class" << std::setw(12) << "enq pkts" << std::setw(12)
                      << "deq pkts" << std::setw(14) << "deq bytes" << std::setw(12) << "codel drop"
                      << std::setw(12) << "overload" << std::setw(8) << "marks\n";
            for (size_t c = 0; c < r.msfcClasses.size(); ++c)
            {
                const auto& s = r.msfcClasses[c];
                std::cout << std::setw(8) << c << std::setw(12) << s.enqueuedPackets
                          << std::setw(12) << s.dequeuedPackets << std::setw(14) << s.dequeuedBytes
                          << std::setw(12) << s.codelDrops << std::setw(12) << s.overloadDrops
                          << std::setw(7) << s.ecnMarks << "\n";
                if (csv.is_open())
                {
                    csv << name << ",class," << c << ",,,,," << s.enqueuedPackets << ","
                        << s.dequeuedPackets << "," << s.dequeuedBytes << "," << s.codelDrops << ","
                        << s.overloadDrops << "," << s.ecnMarks << "\n";
                }
            }
        }
    }
    if (csv.is_open())
    {
        csv.close();
        if (!csv)
        {
            std::cerr << "msfc-dumbbell: writing " << csvPath << " failed\n";
            return 1;
        }
    }
    return 0;
}
