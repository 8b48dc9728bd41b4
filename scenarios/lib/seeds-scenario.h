/*
 * Shared code of the seed-experiment scenario programs (scenario-thin-streams,
 * scenario-starvation, scenario-sfq-fairness): options, presets, config files,
 * --describe, the raw output files of docs/data-format.md, and the schedulers under test.
 *
 * Header-only: every scenarios/*.cc is its own program.
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef SEEDS_SCENARIO_H
#define SEEDS_SCENARIO_H

#include "ns3/core-module.h"
#include "ns3/flow-monitor-module.h"
#include "ns3/fq-codel-variant-queue-disc.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/scheduler-registry.h"
#include "ns3/sfq-queue-disc.h"
#include "ns3/traffic-control-module.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <limits>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace seeds
{

using namespace ns3;

/// Exit with a configuration error (exit code 2).
[[noreturn]] inline void
ConfigError(const std::string& msg)
{
    std::cerr << "error: " << msg << std::endl;
    std::exit(2);
}

/// JSON string literal.
inline std::string
JsonStr(const std::string& s)
{
    std::ostringstream o;
    o << '"';
    for (char c : s)
    {
        switch (c)
        {
        case '"':
            o << "\\\"";
            break;
        case '\\':
            o << "\\\\";
            break;
        case '\n':
            o << "\\n";
            break;
        case '\t':
            o << "\\t";
            break;
        default:
            if (static_cast<unsigned char>(c) < 0x20)
            {
                o << "\\u" << std::hex << std::setw(4) << std::setfill('0') << int(c) << std::dec;
            }
            else
            {
                o << c;
            }
        }
    }
    o << '"';
    return o.str();
}

/// JSON number (finite; integers without a fraction).
inline std::string
JsonNum(double v)
{
    if (!std::isfinite(v))
    {
        return "null";
    }
    std::ostringstream o;
    o << std::setprecision(12) << v;
    return o.str();
}

/** One scenario option. */
struct Param
{
    std::string name;                 //!< option name (--name=value)
    std::string type;                 //!< int double bool string choice datarate time path
    std::string def;                  //!< default value, as text
    std::string help;                 //!< one line
    std::string unit;                 //!< unit, may be empty
    double min = std::numeric_limits<double>::quiet_NaN(); //!< lower bound (int, double)
    double max = std::numeric_limits<double>::quiet_NaN(); //!< upper bound (int, double)
    std::vector<std::string> choices; //!< allowed values (choice)
};

/**
 * Options of one scenario program: declared params, presets, parsing of
 * --preset / --config / --key=value / --ns3::Type::Attr=value, --describe, --out.
 */
class Options
{
  public:
    Options(std::string scenario, std::string description)
        : m_scenario(std::move(scenario)),
          m_description(std::move(description))
    {
    }

    void Add(const Param& p)
    {
        m_params.push_back(p);
        m_values[p.name] = p.def;
    }

    void AddPreset(const std::string& name, const std::map<std::string, std::string>& values)
    {
        m_presets.emplace_back(name, values);
    }

    void SetDefaultPreset(const std::string& name)
    {
        m_defaultPreset = name;
    }

    /// Parse the command line. Exits 0 after --describe, 2 on a bad option.
    void Parse(int argc, char** argv)
    {
        std::string preset = m_defaultPreset;
        std::string config;
        std::vector<std::pair<std::string, std::string>> cli;
        std::vector<std::pair<std::string, std::string>> attrs;
        bool describe = false;
        for (int i = 1; i < argc; ++i)
        {
            std::string a = argv[i];
            if (a == "--describe")
            {
                describe = true;
                continue;
            }
            if (a == "--help" || a == "-h")
            {
                PrintHelp();
                std::exit(0);
            }
            if (a.rfind("--", 0) != 0)
            {
                ConfigError("unexpected argument '" + a + "': options are --key=value (see --help)");
            }
            auto eq = a.find('=');
            if (eq == std::string::npos)
            {
                ConfigError("option '" + a + "' needs a value: write " + a + "=VALUE");
            }
            std::string key = a.substr(2, eq - 2);
            std::string value = a.substr(eq + 1);
            if (key == "preset")
            {
                preset = value;
            }
            else if (key == "config")
            {
                config = value;
            }
            else if (key == "out")
            {
                m_outDir = value;
            }
            else if (key.rfind("ns3::", 0) == 0)
            {
                attrs.emplace_back(key, value);
            }
            else
            {
                cli.emplace_back(key, value);
            }
        }
        if (describe)
        {
            std::cout << Describe() << std::endl;
            std::exit(0);
        }
        const std::map<std::string, std::string>* pv = nullptr;
        for (auto& [n, v] : m_presets)
        {
            if (n == preset)
            {
                pv = &v;
            }
        }
        if (!pv)
        {
            ConfigError("--preset=" + preset + " is not a preset of " + m_scenario +
                        "; presets: " + PresetNames());
        }
        for (auto& [k, v] : *pv)
        {
            Set(k, v, "preset " + preset);
        }
        m_preset = preset;
        if (!config.empty())
        {
            ReadConfig(config);
        }
        for (auto& [k, v] : cli)
        {
            Set(k, v, "--" + k);
        }
        for (auto& [k, v] : attrs)
        {
            std::string name = k.substr(5); // ns3::Type::Attr
            auto sep = name.rfind("::");
            if (sep == std::string::npos)
            {
                ConfigError("--" + k + ": expected --ns3::<Type>::<Attribute>=VALUE");
            }
            if (!Config::SetDefaultFailSafe("ns3::" + name, StringValue(v)))
            {
                ConfigError("--" + k + "=" + v +
                            ": no such ns-3 attribute or invalid value (check the type name, "
                            "e.g. ns3::SfqQueueDisc::Quantum, and the value's format)");
            }
            m_attrs.emplace_back(k, v);
        }
        for (auto& p : m_params)
        {
            Validate(p, m_values[p.name], "value");
        }
    }

    const std::string& Get(const std::string& name) const
    {
        auto it = m_values.find(name);
        NS_ABORT_MSG_IF(it == m_values.end(), "scenario bug: unknown option " << name);
        return it->second;
    }

    double GetDouble(const std::string& name) const
    {
        return std::stod(Get(name));
    }

    int64_t GetInt(const std::string& name) const
    {
        return std::stoll(Get(name));
    }

    bool GetBool(const std::string& name) const
    {
        return ParseBool(Get(name));
    }

    Time GetTime(const std::string& name) const
    {
        return Time(Get(name));
    }

    DataRate GetRate(const std::string& name) const
    {
        return DataRate(Get(name));
    }

    const std::string& OutDir() const
    {
        return m_outDir;
    }

    const std::string& Scenario() const
    {
        return m_scenario;
    }

    /// The resolved options as a JSON object (typed values).
    std::string ConfigJson() const
    {
        std::ostringstream o;
        o << "{";
        bool first = true;
        for (auto& p : m_params)
        {
            o << (first ? "" : ", ") << JsonStr(p.name) << ": " << TypedJson(p, Get(p.name));
            first = false;
        }
        o << (first ? "" : ", ") << JsonStr("preset") << ": " << JsonStr(m_preset);
        for (auto& [k, v] : m_attrs)
        {
            o << ", " << JsonStr(k) << ": " << JsonStr(v);
        }
        o << "}";
        return o.str();
    }

  private:
    static bool ParseBool(const std::string& v)
    {
        return v == "true" || v == "1" || v == "yes" || v == "on";
    }

    static bool IsBool(const std::string& v)
    {
        return v == "true" || v == "1" || v == "yes" || v == "on" || v == "false" || v == "0" ||
               v == "no" || v == "off";
    }

    std::string TypedJson(const Param& p, const std::string& v) const
    {
        if (p.type == "int" || p.type == "double")
        {
            return JsonNum(std::stod(v));
        }
        if (p.type == "bool")
        {
            return ParseBool(v) ? "true" : "false";
        }
        return JsonStr(v);
    }

    std::string PresetNames() const
    {
        std::string s;
        for (auto& [n, v] : m_presets)
        {
            s += (s.empty() ? "" : ", ") + n;
        }
        return s;
    }

    std::string ParamNames() const
    {
        std::string s;
        for (auto& p : m_params)
        {
            s += (s.empty() ? "" : ", ") + p.name;
        }
        return s;
    }

    const Param* Find(const std::string& name) const
    {
        for (auto& p : m_params)
        {
            if (p.name == name)
            {
                return &p;
            }
        }
        return nullptr;
    }

    void Set(const std::string& key, const std::string& value, const std::string& where)
    {
        const Param* p = Find(key);
        if (!p)
        {
            ConfigError(where + ": unknown option '" + key + "'; valid options: " + ParamNames() +
                        " (and --preset, --config, --out, --describe, --ns3::Type::Attr)");
        }
        Validate(*p, value, where);
        m_values[key] = value;
    }

    void Validate(const Param& p, const std::string& v, const std::string& where) const
    {
        auto fail = [&](const std::string& why) {
            ConfigError(where + ": option " + p.name + "=" + v + " " + why);
        };
        if (p.type == "int" || p.type == "double")
        {
            double d;
            size_t used = 0;
            try
            {
                d = std::stod(v, &used);
            }
            catch (...)
            {
                fail("is not a number");
            }
            if (used != v.size())
            {
                fail("is not a number");
            }
            if (p.type == "int" && d != std::floor(d))
            {
                fail("must be an integer");
            }
            if ((!std::isnan(p.min) && d < p.min) || (!std::isnan(p.max) && d > p.max))
            {
                fail("is out of range [" + JsonNum(p.min) + ", " + JsonNum(p.max) + "]");
            }
        }
        else if (p.type == "bool")
        {
            if (!IsBool(v))
            {
                fail("must be true or false");
            }
        }
        else if (p.type == "choice")
        {
            bool ok = false;
            std::string all;
            for (auto& c : p.choices)
            {
                ok = ok || c == v;
                all += (all.empty() ? "" : ", ") + c;
            }
            if (!ok)
            {
                fail("is not one of: " + all);
            }
        }
        else if (p.type == "datarate")
        {
            DataRateValue dv;
            if (!dv.DeserializeFromString(v, MakeDataRateChecker()))
            {
                fail("is not a data rate (e.g. 2Mbps, 1Gbps)");
            }
        }
        else if (p.type == "time")
        {
            TimeValue tv;
            if (!tv.DeserializeFromString(v, MakeTimeChecker()))
            {
                fail("is not a time (e.g. 20ms, 10s)");
            }
        }
    }

    void ReadConfig(const std::string& file)
    {
        std::ifstream in(file);
        if (!in)
        {
            ConfigError("--config=" + file + ": cannot open the file");
        }
        std::string line;
        int n = 0;
        while (std::getline(in, line))
        {
            ++n;
            auto hash = line.find('#');
            if (hash != std::string::npos)
            {
                line = line.substr(0, hash);
            }
            auto trim = [](std::string s) {
                auto b = s.find_first_not_of(" \t\r");
                auto e = s.find_last_not_of(" \t\r");
                return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
            };
            line = trim(line);
            if (line.empty())
            {
                continue;
            }
            auto eq = line.find('=');
            if (eq == std::string::npos)
            {
                ConfigError(file + ":" + std::to_string(n) + ": expected 'key = value'");
            }
            Set(trim(line.substr(0, eq)),
                trim(line.substr(eq + 1)),
                file + ":" + std::to_string(n));
        }
    }

    std::string Describe() const
    {
        std::ostringstream o;
        o << "{" << JsonStr("scenario") << ": " << JsonStr(m_scenario) << ", "
          << JsonStr("description") << ": " << JsonStr(m_description) << ", "
          << JsonStr("params") << ": [";
        for (size_t i = 0; i < m_params.size(); ++i)
        {
            const Param& p = m_params[i];
            o << (i ? ", " : "") << "{\"name\": " << JsonStr(p.name)
              << ", \"type\": " << JsonStr(p.type) << ", \"default\": " << TypedJson(p, p.def);
            if (!std::isnan(p.min))
            {
                o << ", \"min\": " << JsonNum(p.min);
            }
            if (!std::isnan(p.max))
            {
                o << ", \"max\": " << JsonNum(p.max);
            }
            if (!p.unit.empty())
            {
                o << ", \"unit\": " << JsonStr(p.unit);
            }
            if (p.type == "choice")
            {
                o << ", \"choices\": [";
                for (size_t c = 0; c < p.choices.size(); ++c)
                {
                    o << (c ? ", " : "") << JsonStr(p.choices[c]);
                }
                o << "]";
            }
            o << ", \"help\": " << JsonStr(p.help) << "}";
        }
        o << "], \"presets\": {";
        for (size_t i = 0; i < m_presets.size(); ++i)
        {
            o << (i ? ", " : "") << JsonStr(m_presets[i].first) << ": {";
            bool first = true;
            for (auto& [k, v] : m_presets[i].second)
            {
                o << (first ? "" : ", ") << JsonStr(k) << ": " << TypedJson(*Find(k), v);
                first = false;
            }
            o << "}";
        }
        o << "}, \"default_preset\": " << JsonStr(m_defaultPreset) << "}";
        return o.str();
    }

    void PrintHelp() const
    {
        std::cout << m_scenario << ": " << m_description << "\n\n"
                  << "usage: scenario-" << m_scenario
                  << " [--preset=NAME] [--config=FILE] [--key=value ...] [--out=DIR]\n"
                  << "       scenario-" << m_scenario << " --describe\n\noptions:\n";
        for (auto& p : m_params)
        {
            std::cout << "  --" << p.name << " (" << p.type << ", default " << p.def
                      << (p.unit.empty() ? "" : " " + p.unit) << "): " << p.help << "\n";
        }
        std::cout << "presets: " << PresetNames() << " (default " << m_defaultPreset << ")\n";
    }

    std::string m_scenario;
    std::string m_description;
    std::vector<Param> m_params;
    std::map<std::string, std::string> m_values;
    std::vector<std::pair<std::string, std::map<std::string, std::string>>> m_presets;
    std::string m_defaultPreset;
    std::string m_preset;
    std::string m_outDir;
    std::vector<std::pair<std::string, std::string>> m_attrs;
};

/**
 * Files of one run, written under temporary names in the output directory and renamed
 * into place by Commit(); if the run dies first, the temporaries are removed.
 */
class RunOutput
{
  public:
    explicit RunOutput(std::string dir)
        : m_dir(std::move(dir))
    {
        std::error_code ec;
        std::filesystem::create_directories(m_dir, ec);
        if (ec)
        {
            ConfigError("--out=" + m_dir + ": cannot create the directory (" + ec.message() +
                        ")");
        }
    }

    ~RunOutput()
    {
        if (!m_committed)
        {
            for (auto& [name, tmp] : m_files)
            {
                std::error_code ec;
                std::filesystem::remove(tmp, ec);
            }
        }
    }

    /// Open a file for writing under a temporary name.
    std::ofstream& Open(const std::string& name)
    {
        std::string tmp = m_dir + "/." + name + ".tmp";
        m_files.emplace_back(name, tmp);
        m_streams.emplace_back(std::make_unique<std::ofstream>(tmp));
        if (!*m_streams.back())
        {
            std::cerr << "error: cannot write " << tmp << std::endl;
            std::exit(1);
        }
        *m_streams.back() << std::setprecision(10);
        return *m_streams.back();
    }

    /// Close everything and rename the files into place.
    void Commit()
    {
        for (auto& s : m_streams)
        {
            s->close();
            if (s->fail())
            {
                std::cerr << "error: writing results into " << m_dir << " failed" << std::endl;
                std::exit(1);
            }
        }
        for (auto& [name, tmp] : m_files)
        {
            std::filesystem::rename(tmp, m_dir + "/" + name);
        }
        m_committed = true;
    }

  private:
    std::string m_dir;
    std::vector<std::pair<std::string, std::string>> m_files;
    std::vector<std::unique_ptr<std::ofstream>> m_streams;
    bool m_committed = false;
};

/** What a scenario knows about one application (for the flow labels of flows.csv). */
struct AppInfo
{
    int appId;            //!< scenario's application number
    std::string type;     //!< label, e.g. "Thin", "Bulk"
    int priority;         //!< label: the class the scheduler is meant to give it
    std::string protocol; //!< TCP or UDP
    Ipv4Address client;   //!< sender
    Ipv4Address server;   //!< receiver
    uint16_t serverPort;  //!< receiver port (unique per app)
    double activeS;       //!< configured active time
};

/** Progress lines on stderr, about once per simulated second. */
inline void
ScheduleProgress(double total)
{
    static std::function<void()> s_tick;
    s_tick = [total]() {
        double now = Simulator::Now().GetSeconds();
        std::cerr << "progress " << now << " " << total << std::endl;
        if (now + 1.0 <= total + 1e-9)
        {
            Simulator::Schedule(Seconds(1), s_tick);
        }
    };
    Simulator::Schedule(Seconds(1), s_tick);
}

/** Finds the scenario's flow id for a 5-tuple after the run. */
class FlowIds
{
  public:
    FlowIds(Ptr<Ipv4FlowClassifier> classifier, Ptr<FlowMonitor> monitor)
    {
        for (auto& [id, st] : monitor->GetFlowStats())
        {
            auto t = classifier->FindFlow(id);
            m_ids[Key(t.sourceAddress, t.sourcePort, t.destinationAddress, t.destinationPort)] =
                id;
        }
    }

    /// @return the flow id, or -1 when FlowMonitor has no such flow
    int64_t Find(Ipv4Address src, uint16_t sport, Ipv4Address dst, uint16_t dport) const
    {
        auto it = m_ids.find(Key(src, sport, dst, dport));
        return it == m_ids.end() ? -1 : static_cast<int64_t>(it->second);
    }

    static std::string Key(Ipv4Address s, uint16_t sp, Ipv4Address d, uint16_t dp)
    {
        std::ostringstream o;
        o << s << ":" << sp << ">" << d << ":" << dp;
        return o.str();
    }

  private:
    std::map<std::string, FlowId> m_ids;
};

/** Write flows.csv, delay_hist.csv and jitter_hist.csv from FlowMonitor. */
inline void
WriteFlowFiles(RunOutput& out,
               Ptr<FlowMonitor> monitor,
               Ptr<Ipv4FlowClassifier> classifier,
               const std::vector<AppInfo>& apps)
{
    monitor->CheckForLostPackets();
    std::ofstream& f = out.Open("flows.csv");
    f << "flow_id,app_id,type,priority,direction,protocol,src,dst,src_port,dst_port,tx_packets,"
         "tx_bytes,rx_packets,rx_bytes,lost_packets,delay_sum_s,jitter_sum_s,first_tx_s,"
         "last_tx_s,first_rx_s,last_rx_s,active_s\n";
    std::ofstream& dh = out.Open("delay_hist.csv");
    dh << "flow_id,bin_start_s,bin_width_s,count\n";
    std::ofstream& jh = out.Open("jitter_hist.csv");
    jh << "flow_id,bin_start_s,bin_width_s,count\n";
    for (auto& [id, st] : monitor->GetFlowStats())
    {
        auto t = classifier->FindFlow(id);
        const AppInfo* app = nullptr;
        std::string dir = "down";
        for (auto& a : apps)
        {
            if (t.destinationAddress == a.server && t.destinationPort == a.serverPort)
            {
                app = &a;
                dir = "down";
            }
            else if (t.sourceAddress == a.server && t.sourcePort == a.serverPort)
            {
                app = &a;
                dir = "up";
            }
        }
        std::string proto = t.protocol == 6 ? "TCP" : (t.protocol == 17 ? "UDP" : "other");
        f << id << "," << (app ? app->appId : -1) << "," << (app ? app->type : "Other") << ","
          << (app ? app->priority : -1) << "," << dir << "," << proto << ","
          << t.sourceAddress << "," << t.destinationAddress << "," << t.sourcePort << ","
          << t.destinationPort << "," << st.txPackets << "," << st.txBytes << ","
          << st.rxPackets << "," << st.rxBytes << "," << st.lostPackets << ","
          << st.delaySum.GetSeconds() << "," << st.jitterSum.GetSeconds() << ","
          << st.timeFirstTxPacket.GetSeconds() << "," << st.timeLastTxPacket.GetSeconds() << ","
          << st.timeFirstRxPacket.GetSeconds() << "," << st.timeLastRxPacket.GetSeconds() << ","
          << (app ? app->activeS : 0.0) << "\n";
        auto hist = [id](std::ofstream& o, const Histogram& h) {
            for (uint32_t b = 0; b < h.GetNBins(); ++b)
            {
                if (h.GetBinCount(b) > 0)
                {
                    o << id << "," << h.GetBinStart(b) << "," << h.GetBinWidth(b) << ","
                      << h.GetBinCount(b) << "\n";
                }
            }
        };
        hist(dh, st.delayHistogram);
        hist(jh, st.jitterHistogram);
    }
}

/** Write qdisc.csv for the given queue discs (class -1: no per-class numbers). */
inline void
WriteQdiscFile(RunOutput& out,
               const std::vector<std::tuple<uint32_t, uint32_t, std::string, Ptr<QueueDisc>>>& qds)
{
    std::ofstream& f = out.Open("qdisc.csv");
    f << "node,device,scheduler,class,enqueued_packets,enqueued_bytes,dequeued_packets,"
         "dequeued_bytes,codel_drops,overload_drops,ecn_marks\n";
    for (auto& [node, dev, name, qd] : qds)
    {
        const QueueDisc::Stats& s = qd->GetStats();
        uint64_t codel = 0;
        uint64_t other = 0;
        auto count = [&](const std::map<std::string, uint32_t, std::less<>>& m) {
            for (auto& [reason, n] : m)
            {
                if (reason.find("arget exceeded") != std::string::npos ||
                    reason.find("CoDel") != std::string::npos)
                {
                    codel += n;
                }
                else
                {
                    other += n;
                }
            }
        };
        count(s.nDroppedPacketsBeforeEnqueue);
        count(s.nDroppedPacketsAfterDequeue);
        f << node << "," << dev << "," << name << ",-1," << s.nTotalEnqueuedPackets << ","
          << s.nTotalEnqueuedBytes << "," << s.nTotalDequeuedPackets << ","
          << s.nTotalDequeuedBytes << "," << codel << "," << other << ","
          << s.nTotalMarkedPackets << "\n";
    }
}

/** Write meta.json. */
inline void
WriteMeta(RunOutput& out,
          const Options& opt,
          const std::string& scheduler,
          double wallSeconds,
          double simSeconds,
          const std::string& startedUtc)
{
    uint64_t events = Simulator::GetEventCount();
#ifdef MSFC_VERSION
    std::string msfcVersion = MSFC_VERSION;
#else
    std::string msfcVersion = "0.1.0";
#endif
    std::ofstream& m = out.Open("meta.json");
    m << "{" << JsonStr("scenario") << ": " << JsonStr(opt.Scenario()) << ", "
      << JsonStr("config") << ": " << opt.ConfigJson() << ", " << JsonStr("scheduler") << ": "
      << JsonStr(scheduler) << ", " << JsonStr("rng_run") << ": " << RngSeedManager::GetRun()
      << ", " << JsonStr("rng_seed") << ": " << RngSeedManager::GetSeed() << ", "
      << JsonStr("ns3_version") << ": " << JsonStr("3.44") << ", " << JsonStr("msfc_version")
      << ": " << JsonStr(msfcVersion) << ", " << JsonStr("wall_seconds") << ": "
      << JsonNum(wallSeconds) << ", " << JsonStr("sim_seconds") << ": " << JsonNum(simSeconds)
      << ", " << JsonStr("events") << ": " << events << ", " << JsonStr("events_per_second")
      << ": " << JsonNum(wallSeconds > 0 ? events / wallSeconds : 0) << ", "
      << JsonStr("started_utc") << ": " << JsonStr(startedUtc) << ", "
      << JsonStr("metrics_version") << ": 1}\n";
}

inline std::string
UtcNow()
{
    std::time_t t = std::time(nullptr);
    char buf[32];
    std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
    return buf;
}

/// The schedulers the seed experiments compare: names from the SchedulerRegistry.
inline std::vector<std::string>
SchedulerChoices()
{
    return SchedulerRegistry::Select({"Fifo",
                                      "CoDel",
                                      "Sfq",
                                      "FqCoDel",
                                      "FqCoDelVariant",
                                      "FqCoDelWP",
                                      "FqCoDelWP100",
                                      "FqCoDelWSPM",
                                      "Msfc",
                                      "Msfc1"});
}

/**
 * Make the queue disc named by a scheduler choice, through the SchedulerRegistry.
 * @param name one of SchedulerChoices()
 * @param limitPackets packets the scheduler holds at most (0: the scheduler's own default)
 * @param sfqPerturb SFQ perturbation period
 * @param msfcPrios classes of MSFC (for "Msfc")
 */
inline Ptr<QueueDisc>
MakeScheduler(const std::string& name, uint32_t limitPackets, Time sfqPerturb, uint32_t msfcPrios)
{
    if (!SchedulerRegistry::Find(name))
    {
        ConfigError("--scheduler=" + name + ": not a scheduler of this build; valid: " +
                    SchedulerRegistry::Names());
    }
    ObjectFactory f =
        SchedulerRegistry::MakeFactory(name, QueueSize(QueueSizeUnit::PACKETS, limitPackets));
    if (name == "Sfq")
    {
        f.Set("PerturbPeriod", TimeValue(sfqPerturb));
    }
    if (name == "Msfc")
    {
        f.Set("Prios", UintegerValue(msfcPrios));
    }
    return f.Create<QueueDisc>();
}

/** DSCP code points used for the MSFC classes with 3 classes (docs/algorithm.md). */
constexpr uint8_t DSCP_CS1 = 8;  //!< class 0
constexpr uint8_t DSCP_BE = 0;   //!< class 1
constexpr uint8_t DSCP_EF = 46;  //!< class 2

/// The DSCP for a wanted MSFC class (0, 1, 2) with the default map.
inline uint8_t
DscpForClass(int cls)
{
    return cls <= 0 ? DSCP_CS1 : (cls == 1 ? DSCP_BE : DSCP_EF);
}

/**
 * An application that writes `size` bytes every interval (uniform in [minGap, maxGap]) to a
 * TCP or UDP socket: the thin streams of seed 001 (gaming, VoIP, Skype-like UDP).
 */
class PeriodicSender : public Application
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("seeds::PeriodicSender")
                                .SetParent<Application>()
                                .AddConstructor<PeriodicSender>();
        return tid;
    }

    void Setup(TypeId socketType,
               Address peer,
               uint32_t size,
               Time minGap,
               Time maxGap,
               uint8_t tos,
               Ptr<UniformRandomVariable> rng)
    {
        m_socketType = socketType;
        m_peer = peer;
        m_size = size;
        m_minGap = minGap;
        m_maxGap = maxGap;
        m_tos = tos;
        m_rng = rng;
    }

  private:
    void StartApplication() override
    {
        m_socket = Socket::CreateSocket(GetNode(), m_socketType);
        m_socket->SetIpTos(m_tos);
        m_socket->Bind();
        m_socket->Connect(m_peer);
        // A random phase so that many periodic flows do not send in lockstep.
        m_event = Simulator::Schedule(
            Seconds(m_rng->GetValue(0, m_maxGap.GetSeconds())), &PeriodicSender::Send, this);
    }

    void StopApplication() override
    {
        m_event.Cancel();
        if (m_socket)
        {
            m_socket->Close();
        }
    }

    void Send()
    {
        m_socket->Send(Create<Packet>(m_size));
        Time gap = m_minGap == m_maxGap
                       ? m_minGap
                       : Seconds(m_rng->GetValue(m_minGap.GetSeconds(), m_maxGap.GetSeconds()));
        m_event = Simulator::Schedule(gap, &PeriodicSender::Send, this);
    }

    TypeId m_socketType;
    Address m_peer;
    uint32_t m_size{100};
    Time m_minGap;
    Time m_maxGap;
    uint8_t m_tos{0};
    Ptr<UniformRandomVariable> m_rng;
    Ptr<Socket> m_socket;
    EventId m_event;
};

/** The 5-tuple of an IPv4 queue disc item (ports 0 for non-TCP/UDP). */
inline bool
ItemTuple(Ptr<const QueueDiscItem> item,
          Ipv4Address& src,
          Ipv4Address& dst,
          uint16_t& sport,
          uint16_t& dport)
{
    Ptr<const Ipv4QueueDiscItem> ip = DynamicCast<const Ipv4QueueDiscItem>(item);
    if (!ip)
    {
        return false;
    }
    const Ipv4Header& h = ip->GetHeader();
    src = h.GetSource();
    dst = h.GetDestination();
    sport = dport = 0;
    Ptr<Packet> p = ip->GetPacket();
    if (h.GetProtocol() == 6)
    {
        TcpHeader th;
        p->PeekHeader(th);
        sport = th.GetSourcePort();
        dport = th.GetDestinationPort();
    }
    else if (h.GetProtocol() == 17)
    {
        UdpHeader uh;
        p->PeekHeader(uh);
        sport = uh.GetSourcePort();
        dport = uh.GetDestinationPort();
    }
    return true;
}

} // namespace seeds

#endif /* SEEDS_SCENARIO_H */
