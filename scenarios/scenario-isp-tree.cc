// The MSFC thesis benchmark: an ISP access tree (thesis chapter 3, Tables 3.1-3.9).
//
//   server --(1 Gbps, 50 ms)-- G1 -- ... gateways ... -- 14 access points -- clients
//
// The tree is built breadth-first from G1 with the children counts of the option
// `tree`; nodes with children are gateways, leaves are access points.  Each AP
// serves a uniform random number of clients in [clients-min, clients-max], over
// Wi-Fi (one BSS per AP) or, for fast runs, over point-to-point links.  The
// scheduler under test is the root queue disc of every device of every node.
// Traffic: the flow types of a flow-type file (thesis appendix A.2 format),
// cycled over the clients in file order; every flow is measured by FlowMonitor.
//
// Measured: every flow (FlowMonitor), the queue discs' counters, and per class and
// direction over time the goodput at the sinks and the time packets spent in queue discs
// (class_series.csv).
//
// Options, presets and output files: docs/isp-tree.md and docs/data-format.md.

#include "lib/flow-types.h"
#include "lib/json.h"
#include "lib/options.h"
#include "lib/run-output.h"
#include "lib/scenario-run.h"

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/flow-monitor-module.h"
#include "ns3/internet-module.h"
#include "ns3/mobility-module.h"
#include "ns3/msfc-queue-disc.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/scheduler-registry.h"
#include "ns3/traffic-control-module.h"
#include "ns3/wifi-module.h"

#include <algorithm>
#include <cmath>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

using namespace ns3;
using namespace msfc::scenario;

namespace
{

/// The thesis's queue-disc limits by queue-disc type, as multiples of the base limit (link
/// rate x limit-time / 8, in packets): pfifo_fast 1x, the single-queue AQMs 50x, the
/// flow-queue schedulers 1024x.
const std::map<std::string, uint32_t>&
LimitFactors()
{
    static const std::map<std::string, uint32_t> f = {
        {"ns3::PfifoFastQueueDisc", 1},
        {"ns3::CoDelQueueDisc", 50},
        {"ns3::PieQueueDisc", 50},
        {"ns3::FqCoDelQueueDisc", 1024},
        {"ns3::FqCobaltQueueDisc", 1024},
        {"ns3::FqPieQueueDisc", 1024},
        {"ns3::MsfcQueueDisc", 1024},
    };
    return f;
}

/// The schedulers this scenario accepts: those of the SchedulerRegistry whose queue-disc type
/// has a thesis limit, in the registry's order.  Variants with fixed attributes are left out:
/// the scenario sets MSFC's classes and ratio itself.
std::vector<std::string>
SchedulerChoices()
{
    std::vector<std::string> names;
    for (const auto& s : SchedulerRegistry::All())
    {
        if (s.attributes.empty() && LimitFactors().count(s.typeId) > 0)
        {
            names.push_back(s.name);
        }
    }
    return names;
}

/// The options and presets of the scenario.  Parameter defaults are the values of the
/// default preset (quick); every preset lists all values in which it differs from them.
ScenarioSpec
Spec()
{
    return {
        "isp-tree",
        "MSFC thesis benchmark: ISP access tree (server, gateways, Wi-Fi or point-to-point "
        "access points, clients) with the thesis flow types, scheduler on every device",
        {
            {"scheduler",
             ParamType::Choice,
             "Msfc",
             "queue disc installed on every device of every node",
             "",
             std::nullopt,
             std::nullopt,
             SchedulerChoices()},
            {"duration",
             ParamType::Double,
             "20",
             "simulated seconds (applications run from 0.1 s to duration-0.1 s)",
             "s",
             0.5,
             100000},
            {"tree",
             ParamType::String,
             "3,1,3,5,4,0,2,0,0,0,2",
             "children per node of the gateway tree in breadth-first order from G1 (later nodes: "
             "0); "
             "nodes with children are gateways, leaves are access points"},
            {"link-rate",
             ParamType::DataRate,
             "25Mbps",
             "rate of the gateway-gateway and gateway-AP links",
             "bit/s",
             1000,
             1e12},
            {"link-delay",
             ParamType::Time,
             "5ms",
             "one-way delay of the gateway-gateway and gateway-AP links",
             "s",
             0,
             10},
            {"server-rate",
             ParamType::DataRate,
             "250Mbps",
             "rate of the server-G1 link",
             "bit/s",
             1000,
             1e12},
            {"server-delay",
             ParamType::Time,
             "50ms",
             "one-way delay of the server-G1 link",
             "s",
             0,
             10},
            {"last-hop",
             ParamType::Choice,
             "p2p",
             "AP-client links: wifi (one BSS per AP, as in the thesis) or p2p (point-to-point, "
             "much "
             "faster to simulate)",
             "",
             std::nullopt,
             std::nullopt,
             {"wifi", "p2p"}},
            {"last-hop-rate",
             ParamType::DataRate,
             "5Mbps",
             "rate of the AP-client links when last-hop=p2p",
             "bit/s",
             1000,
             1e12},
            {"last-hop-delay",
             ParamType::Time,
             "1ms",
             "one-way delay of the AP-client links when last-hop=p2p",
             "s",
             0,
             10},
            {"wifi-standard",
             ParamType::Choice,
             "80211n",
             "80211n: 802.11n at 2.4 GHz, 20 MHz (the thesis configuration); 80211ac: 802.11ac at "
             "5 GHz, "
             "80 MHz (the thesis text)",
             "",
             std::nullopt,
             std::nullopt,
             {"80211n", "80211ac"}},
            {"wifi-channels",
             ParamType::Choice,
             "per-ap",
             "per-ap: every BSS on its own Yans channel (APs are 300 m apart, out of each other's "
             "range); shared: one channel for all (slower)",
             "",
             std::nullopt,
             std::nullopt,
             {"per-ap", "shared"}},
            {"wifi-radius",
             ParamType::Double,
             "50",
             "clients are placed uniformly on a disc of this radius around their AP",
             "m",
             0,
             1000},
            {"ap-spacing",
             ParamType::Double,
             "300",
             "distance between neighbouring APs (on a line)",
             "m",
             1,
             100000},
            {"clients-min",
             ParamType::Int,
             "8",
             "fewest clients per AP (uniform integer draw)",
             "",
             1,
             10000},
            {"clients-max",
             ParamType::Int,
             "12",
             "most clients per AP (uniform integer draw)",
             "",
             1,
             10000},
            {"apps",
             ParamType::Int,
             "280",
             "applications in total (a bi type's upload counts with its download)",
             "",
             1,
             15000},
            {"flow-types",
             ParamType::Path,
             "thesis",
             "flow-type file (thesis appendix A.2 format); thesis and wrong-priorities name the "
             "shipped "
             "files in scenarios/flow-types"},
            {"priorities",
             ParamType::String,
             "download=0",
             "per-type priority overrides, e.g. download=0,TVStream=2 (empty: the file's "
             "priorities)"},
            {"rate-scale",
             ParamType::Double,
             "0.25",
             "multiplies every flow-type data rate; with link rates scaled alike, the load stays "
             "that of "
             "the thesis and the run needs proportionally fewer events",
             "",
             1e-6,
             1e6},
            {"random-priorities",
             ParamType::Bool,
             "false",
             "give every application a uniform random class in 0..prios-1 instead of its type's "
             "priority"},
            // at most 8: a flow's class travels as its class selector CS0..CS7
            AttributeOption("prios",
                            "ns3::MsfcQueueDisc::Prios",
                            "number of classes (priorities must be below it; at most 8, as a "
                            "flow's class is sent as its class selector CS0..CS7)",
                            {},
                            8),
            AttributeOption("ratio",
                            "ns3::MsfcQueueDisc::Ratio",
                            "MSFC bandwidth ratio between neighbouring classes",
                            {"Msfc"}),
            {"device-queue",
             ParamType::Time,
             "1.25ms",
             "point-to-point device transmit queue, in time at the link rate",
             "s",
             0.000001,
             10},
            {"device-queue-unit",
             ParamType::Choice,
             "bytes",
             "unit of the point-to-point device transmit queues: bytes (device-queue at the link "
             "rate) or packets (that many bytes / 1500, at least 1). ns-3 stops the scheduler "
             "when one more 1500-byte packet would not fit, but a point-to-point frame is 1502 "
             "bytes, so a queue in bytes can overflow by 2 bytes and drop a packet behind the "
             "scheduler (counted in meta.json's device_queue_drops); a queue in packets cannot",
             "",
             std::nullopt,
             std::nullopt,
             {"bytes", "packets"}},
            {"limit-time",
             ParamType::Time,
             "100us",
             "queue disc limit base: link rate x limit-time / 8 packets; PfifoFast 1x, CoDel and "
             "Pie "
             "50x, FqCoDel, FqCobalt, FqPie and Msfc 1024x",
             "s",
             0.000000001,
             10},
            {"tcp-segment", ParamType::Int, "1448", "TCP segment size (bytes)", "B", 16, 65000},
            {"delay-bin",
             ParamType::Time,
             "0.5ms",
             "bin width of the per-flow delay histograms",
             "s",
             1e-7,
             10},
            {"jitter-bin",
             ParamType::Time,
             "0.5ms",
             "bin width of the per-flow jitter histograms",
             "s",
             1e-7,
             10},
            {"sample-interval",
             ParamType::Double,
             "0.5",
             "interval of the per-class time series (class_series.csv)",
             "s",
             0.01,
             1000},
            {"rng-run",
             ParamType::Int,
             "1",
             "ns-3 RNG run number (independent replications)",
             "",
             1,
             1e9},
            {"rng-seed", ParamType::Int, "1", "ns-3 RNG seed", "", 1, 1e9},
            {"progress",
             ParamType::Bool,
             "true",
             "write 'progress <done> <total>' lines on stderr every simulated second"},

        },
        {
            {"thesis",
             "the thesis benchmark: ~140 Wi-Fi (802.11n 2.4 GHz) clients, 280 applications, "
             "100 s, Table 3.3 priorities (hours of wall time)",
             {{"duration", "100"},
              {"link-rate", "100Mbps"},
              {"server-rate", "1Gbps"},
              {"rate-scale", "1"},
              {"last-hop", "wifi"},
              {"wifi-standard", "80211n"},
              {"clients-min", "8"},
              {"clients-max", "12"},
              {"apps", "280"},
              {"flow-types", "thesis"},
              {"priorities", "download=0"}}},
            {"wrong-priorities",
             "the thesis's section 3.3 run: as thesis, with the Table 3.8 priorities",
             {{"flow-types", "wrong-priorities"}, {"priorities", ""}},
             "thesis"},
            {"quick",
             "thesis tree and traffic mix with every rate scaled to 1/4, point-to-point last hop, "
             "20 s: about a minute of CPU per scheduler",
             {{"duration", "20"},
              {"last-hop", "p2p"},
              {"link-rate", "25Mbps"},
              {"server-rate", "250Mbps"},
              {"last-hop-rate", "5Mbps"},
              {"rate-scale", "0.25"},
              {"clients-min", "8"},
              {"clients-max", "12"},
              {"apps", "280"},
              {"flow-types", "thesis"},
              {"priorities", "download=0"}}},
            {"quick-wifi",
             "as quick, with the Wi-Fi (802.11n) last hop and 2-3 clients per AP: a few "
             "minutes per scheduler",
             {{"last-hop", "wifi"}, {"clients-min", "2"}, {"clients-max", "3"}}},
            {"tiny",
             "about a second of wall time, for tests: 1-2 clients per AP, 34 applications, "
             "rates scaled to 1/10, 3 s",
             {{"duration", "3"},
              {"last-hop", "p2p"},
              {"last-hop-rate", "2Mbps"},
              {"rate-scale", "0.1"},
              {"link-rate", "10Mbps"},
              {"server-rate", "100Mbps"},
              {"clients-min", "1"},
              {"clients-max", "2"},
              {"apps", "34"},
              {"flow-types", "thesis"},
              {"priorities", "download=0"}}},
            // tiny's load is too light for the modes beyond the thesis to act: 140 applications
            // at 1/10 of their rates on a 6 Mbps tree offer about 2.3 times what the links below
            // G1 carry, as quick does (2.8), so class 1 is crowded and Table 3.9's inversion
            // appears; the clients hold several flows of one class each (docs/cli.md).
            {"modes",
             "a few seconds of CPU, for MSFC's modes beyond the thesis (Inversion, Isolate, "
             "Boost, Order): Table 3.8's priorities, 1-2 clients per AP, 140 applications, "
             "rates scaled to 1/10 (6 Mbps tree), 10 s",
             {{"duration", "10"},
              {"last-hop", "p2p"},
              {"last-hop-rate", "2Mbps"},
              {"rate-scale", "0.1"},
              {"link-rate", "6Mbps"},
              {"server-rate", "60Mbps"},
              {"clients-min", "1"},
              {"clients-max", "2"},
              {"apps", "140"},
              {"flow-types", "wrong-priorities"},
              {"priorities", ""}}},
        },
        "quick"};
}

std::vector<uint32_t>
ParseTree(const std::string& s)
{
    std::vector<uint32_t> v;
    std::stringstream ss(s);
    std::string item;
    while (std::getline(ss, item, ','))
    {
        int64_t n = 0;
        if (!ParseInt(item, &n) || n < 0 || n > 1000)
        {
            throw ConfigError(
                "option 'tree' has the bad value '" + s +
                "'; expected comma-separated integers 0..1000, e.g. 3,1,3,5,4,0,2,0,0,0,2");
        }
        v.push_back(static_cast<uint32_t>(n));
    }
    if (v.empty() || v[0] == 0)
    {
        throw ConfigError("option 'tree' has the bad value '" + s +
                          "'; the root G1 needs at least one child (first number >= 1)");
    }
    return v;
}

/// Applies "type=prio,type=prio" overrides.
void
ApplyPriorityOverrides(std::vector<FlowType>& types, const std::string& spec, uint32_t prios)
{
    if (Trim(spec).empty())
    {
        return;
    }
    std::stringstream ss(spec);
    std::string item;
    while (std::getline(ss, item, ','))
    {
        item = Trim(item);
        auto eq = item.find('=');
        int64_t p = -1;
        if (eq == std::string::npos || !ParseInt(item.substr(eq + 1), &p) || p < 0)
        {
            throw ConfigError("option 'priorities' has the bad entry '" + item +
                              "'; expected type=priority, e.g. download=0");
        }
        if (p >= static_cast<int64_t>(prios))
        {
            throw ConfigError("option 'priorities': '" + item +
                              "' needs a priority below prios=" + std::to_string(prios) + " (0.." +
                              std::to_string(prios - 1) + "), or raise the option prios");
        }
        std::string name = Trim(item.substr(0, eq));
        bool found = false;
        for (auto& t : types)
        {
            if (t.name == name)
            {
                t.priority = static_cast<uint32_t>(p);
                found = true;
            }
        }
        if (!found)
        {
            std::string names;
            for (const auto& t : types)
            {
                names += (names.empty() ? "" : ", ") + t.name;
            }
            throw ConfigError("option 'priorities' (" + spec +
                              "): the flow-type file has no type '" + name +
                              "'; its types are: " + names +
                              " (presets set priorities for the thesis file; give --priorities= "
                              "to clear it)");
        }
    }
}

/// The options of a run, resolved and checked against each other.
struct Settings
{
    std::string scheduler;
    std::string schedulerTypeId;
    uint32_t limitFactor;
    bool userLimit; //!< the user set the scheduler's MaxSize (ns3:: pass-through)
    double duration;
    std::vector<uint32_t> tree;
    uint32_t prios;
    uint32_t clientsMin;
    uint32_t clientsMax;
    uint32_t nApps;
    bool randomPrio;
    std::string flowTypePath;
    std::vector<FlowType> types;
    bool wifiLastHop;
    DataRate linkRate;
    DataRate serverRate;
    DataRate lastHopRate;
    Time limitTime;
    Time deviceQueue;
    bool deviceQueuePackets; //!< device-queue-unit=packets
};

Settings
ResolveSettings(const Options& opt)
{
    Settings cfg;
    cfg.scheduler = opt.Get("scheduler");
    const SchedulerInfo* sched = SchedulerRegistry::Find(cfg.scheduler);
    if (sched == nullptr)
    {
        throw ConfigError("scheduler '" + cfg.scheduler +
                          "' is not part of this build; choose one of " +
                          SchedulerRegistry::Names() + " (or rebuild with its queue disc)");
    }
    cfg.schedulerTypeId = sched->typeId;
    cfg.limitFactor = LimitFactors().at(sched->typeId);
    cfg.userLimit = false;
    cfg.duration = opt.GetDouble("duration");
    cfg.tree = ParseTree(opt.Get("tree"));
    cfg.prios = static_cast<uint32_t>(opt.GetInt("prios"));
    cfg.clientsMin = static_cast<uint32_t>(opt.GetInt("clients-min"));
    cfg.clientsMax = static_cast<uint32_t>(opt.GetInt("clients-max"));
    if (cfg.clientsMin > cfg.clientsMax)
    {
        throw ConfigError("clients-min (" + std::to_string(cfg.clientsMin) +
                          ") is larger than clients-max (" + std::to_string(cfg.clientsMax) +
                          "); give clients-min <= clients-max");
    }
    cfg.nApps = static_cast<uint32_t>(opt.GetInt("apps"));
    cfg.randomPrio = opt.GetBool("random-priorities");
    if (cfg.randomPrio && !Trim(opt.Get("priorities")).empty())
    {
        throw ConfigError("options 'priorities' and 'random-priorities=true' exclude each other; "
                          "give priorities= (empty) or random-priorities=false");
    }
    // The presets' priorities=download=0 turns the thesis file's priorities into Table 3.3's.
    // Applied to the wrong-priorities file it would move download out of Table 3.8's class 1
    // without the user asking for it, so a run that looks like Table 3.9 would not be one.
    if (Trim(opt.Get("flow-types")) == "wrong-priorities" && !Trim(opt.Get("priorities")).empty() &&
        !opt.GivenByUser("priorities"))
    {
        throw ConfigError("flow-types=wrong-priorities (Table 3.8's priorities) with "
                          "priorities=" +
                          opt.Get("priorities") + " from " + opt.Source("priorities") +
                          ", which would change Table 3.8's classes; give priorities= (empty) "
                          "for Table 3.8 as the file has it, or give the priorities option "
                          "yourself to keep an override");
    }
    cfg.flowTypePath = ResolveFlowTypePath(opt.Get("flow-types"));
    cfg.types = ReadFlowTypes(cfg.flowTypePath, cfg.prios);
    ApplyPriorityOverrides(cfg.types, opt.Get("priorities"), cfg.prios);
    cfg.wifiLastHop = opt.Get("last-hop") == "wifi";
    cfg.linkRate = opt.GetDataRate("link-rate");
    cfg.serverRate = opt.GetDataRate("server-rate");
    cfg.lastHopRate = opt.GetDataRate("last-hop-rate");
    cfg.limitTime = opt.GetTime("limit-time");
    cfg.deviceQueue = opt.GetTime("device-queue");
    cfg.deviceQueuePackets = opt.Get("device-queue-unit") == "packets";
    return cfg;
}

/// ns-3 defaults: ours first, then the user's pass-through values.
void
ConfigureNs3(const Options& opt, Settings& cfg)
{
    RngSeedManager::SetSeed(static_cast<uint32_t>(opt.GetInt("rng-seed")));
    RngSeedManager::SetRun(static_cast<uint64_t>(opt.GetInt("rng-run")));
    Config::SetDefault("ns3::TcpL4Protocol::SocketType", TypeIdValue(TcpNewReno::GetTypeId()));
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(opt.GetInt("tcp-segment")));
    if (cfg.scheduler == "Msfc")
    {
        Config::SetDefault("ns3::MsfcQueueDisc::Prios", StringValue(std::to_string(cfg.prios)));
        Config::SetDefault("ns3::MsfcQueueDisc::Ratio", StringValue(opt.Get("ratio")));
    }
    opt.ApplyNs3Defaults();
    cfg.userLimit = opt.HasNs3Override(cfg.schedulerTypeId + "::MaxSize");
}

/// The built network.
struct Topology
{
    NodeContainer server;
    NodeContainer treeNodes;
    NodeContainer clients;
    std::vector<uint32_t> aps; //!< tree indices of the access points, in BFS order
    uint32_t nGateways;
    uint32_t nClients;
    Ipv4Address serverAddr;
    std::vector<Ipv4Address> clientAddr;
    std::vector<QdiscRecord> qdiscs; //!< every scheduler installed, in installation order
    /// the point-to-point devices' own transmit queues (behind the schedulers)
    std::vector<Ptr<Queue<Packet>>> deviceQueues;

    /// Packets the device queues dropped so far.
    uint64_t DeviceQueueDrops() const
    {
        uint64_t n = 0;
        for (const auto& q : deviceQueues)
        {
            n += q->GetTotalDroppedPackets();
        }
        return n;
    }
};

/// The server, the gateway tree, the access points and their clients, with the scheduler
/// under test on every device.
Topology
BuildTopology(const Options& opt, const Settings& cfg)
{
    NodeContainer server;
    server.Create(1);
    Names::Add("server", server.Get(0));

    // Breadth-first tree: index 0 is G1.
    std::vector<int> parent{-1};
    std::vector<std::vector<uint32_t>> children{{}};
    for (size_t i = 0; i < parent.size(); ++i)
    {
        uint32_t c = i < cfg.tree.size() ? cfg.tree[i] : 0;
        for (uint32_t k = 0; k < c; ++k)
        {
            children[i].push_back(static_cast<uint32_t>(parent.size()));
            parent.push_back(static_cast<int>(i));
            children.emplace_back();
        }
        if (parent.size() > 100000)
        {
            throw ConfigError("option 'tree' builds more than 100000 nodes; give smaller numbers");
        }
    }
    const size_t nTree = parent.size();
    NodeContainer treeNodes;
    treeNodes.Create(nTree);
    std::vector<std::string> treeName(nTree);
    std::vector<uint32_t> aps; // tree indices of the leaves, in BFS order
    {
        uint32_t g = 0;
        uint32_t a = 0;
        for (size_t i = 0; i < nTree; ++i)
        {
            if (children[i].empty())
            {
                treeName[i] = "AP" + std::to_string(++a);
                aps.push_back(static_cast<uint32_t>(i));
            }
            else
            {
                treeName[i] = "G" + std::to_string(++g);
            }
            Names::Add(treeName[i], treeNodes.Get(i));
        }
    }
    const uint32_t nGateways = static_cast<uint32_t>(nTree - aps.size());

    // Clients per AP.
    Ptr<UniformRandomVariable> clientDraw = CreateObject<UniformRandomVariable>();
    clientDraw->SetStream(1);
    std::vector<uint32_t> clientsPerAp;
    uint32_t nClients = 0;
    for (size_t a = 0; a < aps.size(); ++a)
    {
        uint32_t n = clientDraw->GetInteger(cfg.clientsMin, cfg.clientsMax);
        clientsPerAp.push_back(n);
        nClients += n;
    }
    NodeContainer clients;
    clients.Create(nClients);
    std::vector<uint32_t> clientAp(nClients);
    {
        uint32_t c = 0;
        for (size_t a = 0; a < aps.size(); ++a)
        {
            for (uint32_t k = 0; k < clientsPerAp[a]; ++k, ++c)
            {
                clientAp[c] = static_cast<uint32_t>(a);
                Names::Add("C" + std::to_string(c + 1), clients.Get(c));
            }
        }
    }

    InternetStackHelper internet;
    internet.Install(server);
    internet.Install(treeNodes);
    internet.Install(clients);

    std::vector<QdiscRecord> qdiscs;
    std::vector<Ptr<Queue<Packet>>> deviceQueues;
    auto installScheduler = [&](Ptr<NetDevice> dev, DataRate rate, const std::string& peer) {
        uint64_t base = static_cast<uint64_t>(std::llround(static_cast<double>(rate.GetBitRate()) *
                                                           cfg.limitTime.GetSeconds() / 8.0));
        base = std::max<uint64_t>(base, 1);
        uint64_t limit = std::min<uint64_t>(base * cfg.limitFactor, 0xFFFFFFFFu);
        Ptr<QueueDisc> q = SchedulerRegistry::Create(
            cfg.scheduler,
            cfg.userLimit ? QueueSize() : QueueSize(QueueSizeUnit::PACKETS, limit));
        dev->GetNode()->GetObject<TrafficControlLayer>()->SetRootQueueDiscOnDevice(dev, q);
        qdiscs.push_back({Names::FindName(dev->GetNode()), peer, cfg.scheduler, q});
    };

    Ipv4AddressHelper p2pAddr("10.0.0.0", "255.255.255.252");
    auto connectP2p = [&](Ptr<Node> a, Ptr<Node> b, DataRate rate, Time delay) {
        PointToPointHelper p2p;
        p2p.SetDeviceAttribute("DataRate", DataRateValue(rate));
        p2p.SetChannelAttribute("Delay", TimeValue(delay));
        uint64_t qbytes = static_cast<uint64_t>(std::llround(
            static_cast<double>(rate.GetBitRate()) * cfg.deviceQueue.GetSeconds() / 8.0));
        qbytes = std::max<uint64_t>(qbytes, 1600); // room for at least one full-size frame
        const QueueSize qsize =
            cfg.deviceQueuePackets
                ? QueueSize(QueueSizeUnit::PACKETS, std::max<uint64_t>(1, (qbytes + 750) / 1500))
                : QueueSize(QueueSizeUnit::BYTES, qbytes);
        p2p.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", QueueSizeValue(qsize));
        NetDeviceContainer d = p2p.Install(a, b);
        for (uint32_t i = 0; i < d.GetN(); ++i)
        {
            deviceQueues.push_back(DynamicCast<PointToPointNetDevice>(d.Get(i))->GetQueue());
        }
        installScheduler(d.Get(0), rate, Names::FindName(b));
        installScheduler(d.Get(1), rate, Names::FindName(a));
        Ipv4InterfaceContainer ifc = p2pAddr.Assign(d);
        p2pAddr.NewNetwork();
        return ifc;
    };

    Ipv4InterfaceContainer serverIfc =
        connectP2p(server.Get(0), treeNodes.Get(0), cfg.serverRate, opt.GetTime("server-delay"));
    const Ipv4Address serverAddr = serverIfc.GetAddress(0);
    for (size_t i = 1; i < nTree; ++i)
    {
        connectP2p(treeNodes.Get(parent[i]),
                   treeNodes.Get(i),
                   cfg.linkRate,
                   opt.GetTime("link-delay"));
    }

    std::vector<Ipv4Address> clientAddr(nClients);
    if (cfg.wifiLastHop)
    {
        MobilityHelper mobility;
        Ptr<ListPositionAllocator> apPos = CreateObject<ListPositionAllocator>();
        const double spacing = opt.GetDouble("ap-spacing");
        for (size_t a = 0; a < aps.size(); ++a)
        {
            apPos->Add(Vector(spacing * static_cast<double>(a), 0.0, 0.0));
        }
        mobility.SetPositionAllocator(apPos);
        mobility.SetMobilityModel("ns3::ConstantPositionMobilityModel");
        for (uint32_t a : aps)
        {
            mobility.Install(treeNodes.Get(a));
        }

        WifiHelper wifi;
        YansWifiPhyHelper phy;
        if (opt.Get("wifi-standard") == "80211n")
        {
            wifi.SetStandard(WIFI_STANDARD_80211n);
            phy.Set("ChannelSettings", StringValue("{0, 20, BAND_2_4GHZ, 0}"));
        }
        else
        {
            wifi.SetStandard(WIFI_STANDARD_80211ac);
            phy.Set("ChannelSettings", StringValue("{0, 80, BAND_5GHZ, 0}"));
        }
        wifi.SetRemoteStationManager("ns3::IdealWifiManager");
        // One transmit queue (AC_BE) for everything: the scheduler under test is the
        // only place where classes are told apart.
        wifi.SetSelectQueueCallback([](Ptr<QueueItem> item) -> std::size_t {
            SocketPriorityTag tag;
            tag.SetPriority(0);
            item->GetPacket()->ReplacePacketTag(tag);
            return 0;
        });
        Ptr<YansWifiChannel> shared;
        if (opt.Get("wifi-channels") == "shared")
        {
            shared = YansWifiChannelHelper::Default().Create();
        }
        Ipv4AddressHelper wifiAddr("10.128.0.0", "255.255.255.0");
        const double radius = opt.GetDouble("wifi-radius");
        int64_t stream = 1000;
        uint32_t c0 = 0;
        for (size_t a = 0; a < aps.size(); ++a)
        {
            NodeContainer sta;
            for (uint32_t k = 0; k < clientsPerAp[a]; ++k)
            {
                sta.Add(clients.Get(c0 + k));
            }
            phy.SetChannel(shared ? shared : YansWifiChannelHelper::Default().Create());
            Ssid ssid("ap-" + std::to_string(a + 1));
            WifiMacHelper mac;
            mac.SetType("ns3::StaWifiMac", "Ssid", SsidValue(ssid));
            NetDeviceContainer staDev = wifi.Install(phy, mac, sta);
            mac.SetType("ns3::ApWifiMac", "Ssid", SsidValue(ssid));
            NetDeviceContainer apDev = wifi.Install(phy, mac, treeNodes.Get(aps[a]));
            stream += wifi.AssignStreams(staDev, stream);
            stream += wifi.AssignStreams(apDev, stream);

            Ptr<UniformDiscPositionAllocator> disc = CreateObject<UniformDiscPositionAllocator>();
            disc->SetRho(radius);
            disc->SetX(spacing * static_cast<double>(a));
            disc->SetY(0.0);
            stream += disc->AssignStreams(stream);
            MobilityHelper m;
            m.SetPositionAllocator(disc);
            m.SetMobilityModel("ns3::ConstantPositionMobilityModel");
            m.Install(sta);

            installScheduler(apDev.Get(0), cfg.linkRate, "wifi");
            for (uint32_t k = 0; k < staDev.GetN(); ++k)
            {
                installScheduler(staDev.Get(k), cfg.linkRate, "wifi");
            }
            Ipv4InterfaceContainer apIfc = wifiAddr.Assign(apDev);
            Ipv4InterfaceContainer staIfc = wifiAddr.Assign(staDev);
            for (uint32_t k = 0; k < staDev.GetN(); ++k)
            {
                clientAddr[c0 + k] = staIfc.GetAddress(k);
            }
            wifiAddr.NewNetwork();
            c0 += clientsPerAp[a];
        }
    }
    else
    {
        for (uint32_t c = 0; c < nClients; ++c)
        {
            Ipv4InterfaceContainer ifc = connectP2p(treeNodes.Get(aps[clientAp[c]]),
                                                    clients.Get(c),
                                                    cfg.lastHopRate,
                                                    opt.GetTime("last-hop-delay"));
            clientAddr[c] = ifc.GetAddress(1);
        }
    }
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();

    return {server,
            treeNodes,
            clients,
            aps,
            nGateways,
            nClients,
            serverAddr,
            clientAddr,
            qdiscs,
            deviceQueues};
}

/// The time a packet has spent in queue discs so far, summed over the hops it crossed.
class QueueTimeTag : public Tag
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid =
            TypeId("msfc::IspTreeQueueTimeTag").SetParent<Tag>().AddConstructor<QueueTimeTag>();
        return tid;
    }

    TypeId GetInstanceTypeId() const override
    {
        return GetTypeId();
    }

    uint32_t GetSerializedSize() const override
    {
        return 8;
    }

    void Serialize(TagBuffer i) const override
    {
        i.WriteU64(nanoseconds);
    }

    void Deserialize(TagBuffer i) override
    {
        nanoseconds = i.ReadU64();
    }

    void Print(std::ostream& os) const override
    {
        os << "queued=" << nanoseconds << "ns";
    }

    uint64_t nanoseconds = 0;
};

/**
 * Per class and direction over time (class_series.csv): the application bytes the sinks
 * received (goodput) and, of the packets delivered to their destination (data and
 * acknowledgements), the time each spent in queue discs summed over its path.  The class of
 * a goodput sample is its flow's priority label; that of a delivered packet its DSCP's
 * priority.
 */
class ClassSeries
{
  public:
    ClassSeries(uint32_t prios, double interval, double duration)
        : m_prios(prios),
          m_interval(interval),
          m_duration(duration),
          m_cells(2 * prios)
    {
        for (uint32_t p = 0; p < prios; ++p)
        {
            m_classOfDscp[MsfcQueueDisc::DscpForDefaultClass(p)] = p;
        }
    }

    /// Adds the sojourn time of a packet leaving a queue disc to its tag.
    static void OnDequeue(Ptr<const QueueDiscItem> item)
    {
        Ptr<Packet> p = item->GetPacket();
        QueueTimeTag tag;
        p->RemovePacketTag(tag);
        tag.nanoseconds +=
            static_cast<uint64_t>((Simulator::Now() - item->GetTimeStamp()).GetNanoSeconds());
        p->AddPacketTag(tag);
    }

    /// A packet delivered to its destination (Ipv4L3Protocol LocalDeliver); `down` for a
    /// client, not the server.
    void OnDeliver(bool down, const Ipv4Header& h, Ptr<const Packet> p)
    {
        auto it = m_classOfDscp.find(static_cast<uint8_t>(h.GetDscp()));
        if (it == m_classOfDscp.end())
        {
            return;
        }
        QueueTimeTag tag;
        p->PeekPacketTag(tag);
        Cell& c = m_cells[Index(down, it->second)];
        const double s = static_cast<double>(tag.nanoseconds) * 1e-9;
        ++c.packets;
        c.queuedSum += s;
        c.queuedMax = std::max(c.queuedMax, s);
    }

    /// Application bytes received by a sink of a flow of class `prio`.
    void OnSinkRx(bool down, uint32_t prio, uint32_t bytes)
    {
        m_cells[Index(down, prio)].bytes += bytes;
    }

    /// Samples every interval until the end of the run.
    void Start()
    {
        Simulator::Schedule(Seconds(m_interval), &ClassSeries::Sample, this);
    }

    /// Writes class_series.csv, with the last, possibly shorter interval up to now (the end).
    void Write(RunOutput& out)
    {
        if (Simulator::Now().GetSeconds() > m_last + 1e-9)
        {
            Record();
        }
        std::ofstream& f = out.Open("class_series.csv");
        f << "time_s,direction,class,goodput_bps,packets,queued_mean_s,queued_max_s\n";
        for (const auto& r : m_rows)
        {
            f << r << "\n";
        }
    }

  private:
    struct Cell
    {
        uint64_t bytes = 0;
        uint64_t packets = 0;
        double queuedSum = 0;
        double queuedMax = 0;
    };

    size_t Index(bool down, uint32_t prio) const
    {
        return (down ? 0 : m_prios) + std::min(prio, m_prios - 1);
    }

    void Sample()
    {
        Record();
        if (m_last + m_interval <= m_duration + 1e-9)
        {
            Simulator::Schedule(Seconds(m_interval), &ClassSeries::Sample, this);
        }
    }

    /// One row per direction and class about the interval (m_last, now].
    void Record()
    {
        const double now = Simulator::Now().GetSeconds();
        const double interval = now - m_last;
        for (int dir = 0; dir < 2; ++dir)
        {
            for (uint32_t p = 0; p < m_prios; ++p)
            {
                Cell& c = m_cells[Index(dir == 0, p)];
                std::ostringstream row;
                row << Fmt(now) << "," << (dir == 0 ? "down" : "up") << "," << p << ","
                    << Fmt(static_cast<double>(c.bytes) * 8.0 / interval) << "," << c.packets << ","
                    << (c.packets ? Fmt(c.queuedSum / static_cast<double>(c.packets)) : "") << ","
                    << (c.packets ? Fmt(c.queuedMax) : "");
                m_rows.push_back(row.str());
                c = Cell();
            }
        }
        m_last = now;
    }

    uint32_t m_prios;
    double m_interval;
    double m_duration;
    double m_last = 0;         //!< end of the last recorded interval (s)
    std::vector<Cell> m_cells; //!< [down classes..., up classes...]
    std::map<uint8_t, uint32_t> m_classOfDscp;
    std::vector<std::string> m_rows;
};

struct AppRecord
{
    uint32_t id;
    uint32_t type;
    uint32_t priority;
    uint32_t client;
};

/// What InstallTraffic made.
struct Traffic
{
    FlowLabels labels;
    uint32_t applications;
    double appStart; //!< every application's start (s)
    double appStop;  //!< and stop
};

/// The applications of the flow types, cycled over the clients.
Traffic
InstallTraffic(const Options& opt, const Settings& cfg, Topology& topo, ClassSeries& series)
{
    // Types are repeated count-ratio times each, in file order, cycling until
    // `apps` applications exist; application i runs on client i mod clients.
    std::vector<uint32_t> cycle;
    for (uint32_t t = 0; t < cfg.types.size(); ++t)
    {
        for (uint32_t k = 0; k < cfg.types[t].countRatio; ++k)
        {
            cycle.push_back(t);
        }
    }
    Ptr<UniformRandomVariable> prioDraw = CreateObject<UniformRandomVariable>();
    prioDraw->SetStream(2);
    std::vector<AppRecord> apps;
    for (uint32_t i = 0; i < cfg.nApps; ++i)
    {
        uint32_t t = cycle[i % cycle.size()];
        uint32_t p =
            cfg.randomPrio ? prioDraw->GetInteger(0, cfg.prios - 1) : cfg.types[t].priority;
        apps.push_back({i, t, p, i % topo.nClients});
    }

    const double appStart = 0.1;
    const double appStop = cfg.duration - 0.1;
    FlowLabels labels;
    const double rateScale = opt.GetDouble("rate-scale");
    auto appRateBps = [rateScale](const FlowType& t) {
        return std::max<uint64_t>(
            1,
            static_cast<uint64_t>(std::llround(static_cast<double>(t.dataRateBps) * rateScale)));
    };
    int64_t appStream = 100000;
    auto install = [&](uint32_t appIdx,
                       Ptr<Node> src,
                       Ptr<Node> dst,
                       Ipv4Address dstAddr,
                       uint16_t port,
                       bool down) {
        const AppRecord& ar = apps[appIdx];
        const FlowType& t = cfg.types[ar.type];
        const std::string factory = t.udp ? "ns3::UdpSocketFactory" : "ns3::TcpSocketFactory";
        const uint8_t tos =
            static_cast<uint8_t>(MsfcQueueDisc::DscpForDefaultClass(ar.priority) << 2);

        OnOffHelper onoff(factory, InetSocketAddress(dstAddr, port));
        onoff.SetAttribute("DataRate", DataRateValue(DataRate(appRateBps(t))));
        onoff.SetAttribute("PacketSize", UintegerValue(t.packetSize));
        onoff.SetAttribute("OnTime", StringValue(t.onTime));
        onoff.SetAttribute("OffTime", StringValue(t.offTime));
        onoff.SetAttribute("Tos", UintegerValue(tos));
        ApplicationContainer a = onoff.Install(src);
        appStream += a.Get(0)->AssignStreams(appStream);
        a.Start(Seconds(appStart));
        a.Stop(Seconds(appStop));

        PacketSinkHelper sinkHelper(factory, InetSocketAddress(Ipv4Address::GetAny(), port));
        ApplicationContainer s = sinkHelper.Install(dst);
        s.Start(Seconds(0.0));
        s.Stop(Seconds(cfg.duration));
        const uint32_t prio = ar.priority;
        s.Get(0)->TraceConnectWithoutContext(
            "Rx",
            Callback<void, Ptr<const Packet>, const Address&>(
                [&series, down, prio](Ptr<const Packet> p, const Address&) {
                    series.OnSinkRx(down, prio, p->GetSize());
                }));
        if (!t.udp)
        {
            // TCP acknowledgements carry the class of their connection: the accepted
            // socket inherits the listening socket's TOS.
            Ptr<PacketSink> sink = DynamicCast<PacketSink>(s.Get(0));
            Simulator::Schedule(Seconds(appStart / 2),
                                [sink, tos]() { sink->GetListeningSocket()->SetIpTos(tos); });
        }
        labels.Add(
            dstAddr,
            port,
            FlowLabel{ar.id, cfg.types[ar.type].name, ar.priority, down, appStop - appStart});
    };
    for (uint32_t i = 0; i < apps.size(); ++i)
    {
        const AppRecord& ar = apps[i];
        uint16_t port = static_cast<uint16_t>(10000 + ar.id);
        Ptr<Node> client = topo.clients.Get(ar.client);
        install(i, topo.server.Get(0), client, topo.clientAddr[ar.client], port, true);
        if (cfg.types[ar.type].bidirectional)
        {
            install(i, client, topo.server.Get(0), topo.serverAddr, port, false);
        }
    }

    return {labels, static_cast<uint32_t>(apps.size()), appStart, appStop};
}

/// With MSFC: checks, once the queue discs are initialised, that the DSCP marking lands
/// every priority in its class.
void
ScheduleDscpCheck(const Settings& cfg, const Topology& topo, double at)
{
    if (cfg.scheduler != "Msfc")
    {
        return;
    }
    Ptr<MsfcQueueDisc> probe = DynamicCast<MsfcQueueDisc>(topo.qdiscs.front().qdisc);
    const uint32_t prios = cfg.prios;
    Simulator::Schedule(Seconds(at), [probe, prios]() {
        for (uint32_t p = 0; p < prios; ++p)
        {
            uint32_t got = probe->ClassOfDscp(MsfcQueueDisc::DscpForDefaultClass(p));
            if (got != p)
            {
                std::cerr << "isp-tree: warning: DSCP "
                          << int(MsfcQueueDisc::DscpForDefaultClass(p)) << " marks priority " << p
                          << " but ns3::MsfcQueueDisc::DscpMap puts it in class " << got
                          << std::endl;
            }
        }
    });
}

int
Run(int argc, char** argv)
{
    SimulationRun run;
    Options opt(Spec());
    std::optional<Options::Request> parsed = ParseCommandLine(opt, argc, argv);
    if (!parsed)
    {
        return 0;
    }
    const Options::Request& req = *parsed;
    Settings cfg = ResolveSettings(opt);
    if (CheckOnly(req))
    {
        return 0;
    }
    RunOutput out(req.outDir); // checks the directory before the long part
    ConfigureNs3(opt, cfg);

    // topology, traffic
    Topology topo = BuildTopology(opt, cfg);
    ClassSeries series(cfg.prios, opt.GetDouble("sample-interval"), cfg.duration);
    Traffic traffic = InstallTraffic(opt, cfg, topo, series);

    // measurement
    FlowMeasurement flows(opt.GetTime("delay-bin").GetSeconds(),
                          opt.GetTime("jitter-bin").GetSeconds());
    ScheduleDscpCheck(cfg, topo, traffic.appStart / 2);
    for (const auto& q : topo.qdiscs)
    {
        q.qdisc->TraceConnectWithoutContext("Dequeue", MakeCallback(&ClassSeries::OnDequeue));
    }
    auto deliverTo = [&series](Ptr<Node> node, bool down) {
        node->GetObject<Ipv4L3Protocol>()->TraceConnectWithoutContext(
            "LocalDeliver",
            Callback<void, const Ipv4Header&, Ptr<const Packet>, uint32_t>(
                [&series, down](const Ipv4Header& h, Ptr<const Packet> p, uint32_t) {
                    series.OnDeliver(down, h, p);
                }));
    };
    deliverTo(topo.server.Get(0), false);
    for (uint32_t c = 0; c < topo.clients.GetN(); ++c)
    {
        deliverTo(topo.clients.Get(c), true);
    }
    series.Start();
    std::cerr << "isp-tree: " << cfg.scheduler << ", " << topo.nGateways << " gateways, "
              << topo.aps.size() << " APs, " << topo.nClients << " clients ("
              << (cfg.wifiLastHop ? "Wi-Fi" : "point-to-point") << "), " << traffic.applications
              << " applications, " << cfg.duration << " s simulated" << std::endl;

    run.Run(cfg.duration, opt.GetBool("progress"));

    const uint32_t unmatched = flows.Write(out, traffic.labels, traffic.appStop - traffic.appStart);
    series.Write(out);
    FinishRun(out,
              opt,
              cfg.scheduler,
              run,
              topo.qdiscs,
              {{"flow_types_file", json::Quote(cfg.flowTypePath)},
               {"gateways", std::to_string(topo.nGateways)},
               {"access_points", std::to_string(topo.aps.size())},
               {"clients", std::to_string(topo.nClients)},
               {"applications", std::to_string(traffic.applications)},
               {"flows", std::to_string(flows.Monitor()->GetFlowStats().size())},
               {"unlabelled_flows", std::to_string(unmatched)},
               {"device_queue_drops", std::to_string(topo.DeviceQueueDrops())}});
    std::cerr << "isp-tree: done in " << Fmt(run.WallSeconds()) << " s wall (" << run.Events()
              << " events, " << Fmt(run.EventsPerSecond()) << " events/s); results in "
              << req.outDir << std::endl;
    return 0;
}

} // namespace

int
main(int argc, char** argv)
{
    return Main("scenario-isp-tree", [&] { return Run(argc, argv); });
}
