/*
 * Seed 003: class-based scheduling with backlog-based (WRED) or rate-based (RB) queue
 * management, against MSFC.  A dumbbell with one host pair per class; the DiffServ link X
 * (1 Mbps, 2 Mbps in the seed's scenario 3) is R1's bottleneck egress.  Every class is a
 * set of TCP (or constant-rate UDP) sources with its own start and stop times; in the
 * real-time experiment the number of sessions of one class ramps up linearly.
 *
 * Besides flows.csv & co. the program writes per-class time series (class_timeseries.csv:
 * offered and served rate, rate served within the delay deadline, drops, backlog) and the
 * aggregate backlog over time (backlog.csv); docs/data-format.md.
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "lib/seeds-seed001.h" // AddBulk, AddPeriodic

#include "ns3/applications-module.h"
#include "ns3/dscp-classifier.h"
#include "ns3/msfc-queue-disc.h"
#include "ns3/weighted-class-queue-disc.h"

using namespace ns3;
using namespace seeds;

namespace
{

/// The sources of one class.
struct ClassSpec
{
    std::string kind;            //!< "tcp" or "udp"
    uint32_t sources;            //!< number of sources (the ramp's end for the ramp class)
    double udpMbps;              //!< rate of a UDP source
    double start;                //!< start of the class (s)
    double stop;                 //!< stop of the class (s)
    uint32_t rampFrom;           //!< sources at the start when the class ramps (else = sources)
    std::vector<double> startOf; //!< start time of each source
};

std::vector<std::string>
SplitList(const std::string& text)
{
    std::vector<std::string> out;
    std::stringstream ss(text);
    std::string tok;
    while (std::getline(ss, tok, ','))
    {
        out.push_back(Trim(tok));
    }
    return out;
}

std::vector<double>
NumberList(const Options& opt, const std::string& name, uint32_t n, double min, double max)
{
    std::vector<std::string> toks = SplitList(opt.Get(name));
    if (toks.size() != n)
    {
        throw ConfigError(
            "--" + name + "=" + opt.Get(name) + " has " + std::to_string(toks.size()) +
            " values but --classes=" + std::to_string(n) + ": give one per class, class 0 first");
    }
    std::vector<double> out;
    for (const auto& t : toks)
    {
        char* end = nullptr;
        double v = std::strtod(t.c_str(), &end);
        if (t.empty() || *end != '\0' || !(v >= min) || v > max)
        {
            throw ConfigError("--" + name + "=" + opt.Get(name) + ": '" + t +
                              "' is not a number in " + Fmt(min) + ".." + Fmt(max));
        }
        out.push_back(v);
    }
    return out;
}

/**
 * A saturated TCP source like BulkSend, but one that stops cleanly: it writes only once
 * connected, and at its stop time it closes the socket only when the connection exists.
 * (ns-3.44 crashes in TcpSocketBase::PersistTimeout when a socket whose SYN was dropped
 * is closed before it connects: the peer window is still 0 and the persist timer finds no
 * data; the AQMs here drop SYNs like any packet.)
 */
class TcpSource : public Application
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid =
            TypeId("seeds::TcpSource").SetParent<Application>().AddConstructor<TcpSource>();
        return tid;
    }

    void Setup(Address peer, uint8_t tos)
    {
        m_peer = peer;
        m_tos = tos;
    }

  private:
    void StartApplication() override
    {
        m_socket = Socket::CreateSocket(GetNode(), TcpSocketFactory::GetTypeId());
        m_socket->SetIpTos(m_tos);
        m_socket->Bind();
        m_socket->SetConnectCallback(MakeCallback(&TcpSource::Connected, this),
                                     MakeNullCallback<void, Ptr<Socket>>());
        m_socket->SetSendCallback(MakeCallback(&TcpSource::Fill, this));
        m_socket->Connect(m_peer);
    }

    void StopApplication() override
    {
        m_stopped = true;
        if (m_socket && m_connected)
        {
            m_socket->Close();
        }
    }

    void Connected(Ptr<Socket> s)
    {
        m_connected = true;
        Fill(s, s->GetTxAvailable());
    }

    void Fill(Ptr<Socket> s, uint32_t)
    {
        while (m_connected && !m_stopped && s->GetTxAvailable() >= kChunk)
        {
            if (s->Send(Create<Packet>(kChunk)) < 0)
            {
                break;
            }
        }
    }

    static constexpr uint32_t kChunk = 948;
    Address m_peer;
    uint8_t m_tos{0};
    Ptr<Socket> m_socket;
    bool m_connected{false};
    bool m_stopped{false};
};

/// Per-class counters of the bottleneck, fed by the queue disc's traces.
struct ClassMeter
{
    DscpClassifier classifier;
    uint32_t nClasses{1};
    double deadline{0.05};

    struct Counters
    {
        uint64_t offeredBytes{0};
        uint64_t servedBytes{0};
        uint64_t deadlineBytes{0};
        uint64_t drops{0};
        int64_t backlog{0};
    };

    std::vector<Counters> now;  //!< running totals
    std::vector<Counters> last; //!< totals at the previous sample

    void OnEnqueue(Ptr<const QueueDiscItem> item)
    {
        Counters& c = now[classifier.Classify(item)];
        c.offeredBytes += item->GetSize();
        ++c.backlog;
    }

    void OnDropBefore(Ptr<const QueueDiscItem> item, const char*)
    {
        Counters& c = now[classifier.Classify(item)];
        c.offeredBytes += item->GetSize();
        ++c.drops;
    }

    // A queue disc that drops at dequeue (CoDel in MSFC) has taken the packet out of its
    // queue first, which fired the Dequeue trace: undo what OnDequeue counted.
    void OnDropAfter(Ptr<const QueueDiscItem> item, const char*)
    {
        Counters& c = now[classifier.Classify(item)];
        ++c.drops;
        c.servedBytes -= item->GetSize();
        if (InTime(item))
        {
            c.deadlineBytes -= item->GetSize();
        }
    }

    bool InTime(Ptr<const QueueDiscItem> item) const
    {
        return (Simulator::Now() - item->GetTimeStamp()).GetSeconds() <= deadline;
    }

    void OnDequeue(Ptr<const QueueDiscItem> item)
    {
        Counters& c = now[classifier.Classify(item)];
        c.servedBytes += item->GetSize();
        --c.backlog;
        if (InTime(item))
        {
            c.deadlineBytes += item->GetSize();
        }
    }
};

/// The options and presets of the scenario.
ScenarioSpec
Spec()
{
    return {
        "class-aqm",
        "seed 003: weighted class scheduling with WRED or rate-based AQM vs MSFC on a "
        "1-2 Mbps DiffServ link; per-class rates, backlog and goodput within a delay "
        "deadline over time",
        {
            {"duration", ParamType::Double, "220", "simulated seconds", "s", 1, 100000},
            {"scheduler",
             ParamType::Choice,
             "WfqRb",
             "scheduler at the DiffServ link",
             "",
             std::nullopt,
             std::nullopt,
             SchedulerRegistry::Select({"WfqRb",
                                        "WfqWred",
                                        "Wfq",
                                        "DrrRb",
                                        "DrrWred",
                                        "Drr",
                                        "Msfc",
                                        "FqCoDel",
                                        "CoDel",
                                        "Fifo"})},
            {"bottleneck-rate", ParamType::DataRate, "1Mbps", "rate of the DiffServ link X"},
            {"rtt",
             ParamType::Time,
             "40ms",
             "base round-trip time (host links take 1 ms each way, the link X the rest)"},
            {"access-rate", ParamType::DataRate, "100Mbps", "rate of the host links"},
            {"buffer",
             ParamType::Int,
             "200",
             "packets the bottleneck scheduler holds",
             "packets",
             1,
             1e6},
            {"classes",
             ParamType::Int,
             "4",
             "number of classes (class classes-1 most important; sets "
             "ns3::MsfcQueueDisc::Prios)",
             "",
             1,
             8},
            {"weights",
             ParamType::String,
             "126,251,501,1001",
             "work quantum W of each class in bytes, class 0 first (the seed's W in bits / 8)",
             "",
             std::nullopt,
             std::nullopt,
             {},
             {"WfqRb", "WfqWred", "Wfq", "DrrRb", "DrrWred", "Drr"}},
            {"class-kind",
             ParamType::String,
             "tcp,tcp,tcp,tcp",
             "sources of each class: tcp (saturated TCP) or udp (constant rate), class 0 first"},
            {"class-sources",
             ParamType::String,
             "16,16,8,8",
             "sources per class (for the ramp class: its number at the end), class 0 first"},
            {"class-udp-mbps",
             ParamType::String,
             "0,0,0,0",
             "rate of a UDP source of each class (Mbit/s), class 0 first"},
            {"class-start", ParamType::String, "60,40,20,0", "start of each class (s)"},
            {"class-stop", ParamType::String, "220,180,140,100", "stop of each class (s)"},
            {"ramp-class",
             ParamType::Int,
             "-1",
             "class whose TCP sessions are added linearly from --ramp-from at its start to "
             "its --class-sources at its stop (-1: none)",
             "",
             -1,
             7},
            {"ramp-from",
             ParamType::Int,
             "50",
             "sessions of the ramp class at its start",
             "",
             1,
             100000},
            {"wred-q",
             ParamType::Double,
             "10",
             "WRED: q, the weighted average backlog (packets) at which P reaches 1 (P = avg/q)",
             "packets",
             0.001,
             1e6,
             {},
             {"WfqWred", "DrrWred"}},
            {"wred-weight",
             ParamType::Double,
             "0.02",
             "WRED: EWMA weight of the backlog",
             "",
             1e-6,
             1,
             {},
             {"WfqWred", "DrrWred"}},
            {"rb-u",
             ParamType::String,
             "0.93",
             "RB: target utilisation u, one value or one per class (class 0 first)",
             "",
             std::nullopt,
             std::nullopt,
             {},
             {"WfqRb", "DrrRb"}},
            {"rb-history",
             ParamType::Int,
             "100",
             "RB: served packets H of the capacity estimate",
             "",
             1,
             1 << 20,
             {},
             {"WfqRb", "DrrRb"}},
            {"rb-tau",
             ParamType::Time,
             "100ms",
             "RB: time constant of the arrival rate estimate",
             "",
             std::nullopt,
             std::nullopt,
             {},
             {"WfqRb", "DrrRb"}},
            {"msfc-ratio",
             ParamType::Double,
             "2",
             "MSFC: bandwidth ratio of adjacent classes (2: 8:4:2:1 with 4 classes; sets "
             "ns3::MsfcQueueDisc::Ratio)",
             "",
             0.0001,
             16,
             {},
             {"Msfc"}},
            {"deadline",
             ParamType::Time,
             "50ms",
             "queueing delay up to which a served packet counts as delivered in time"},
            {"sample-interval",
             ParamType::Double,
             "1",
             "interval of the per-class time series",
             "s",
             0.001,
             1000},
            {"backlog-interval",
             ParamType::Double,
             "0.05",
             "interval of the aggregate backlog samples",
             "s",
             0.001,
             1000},
            {"rng-run", ParamType::Int, "1", "ns-3 RngRun (independent replications)", "", 1, 1e9},
            {"rng-seed", ParamType::Int, "1", "ns-3 RngSeed", "", 1, 1e9},
            {"delay-bin",
             ParamType::Double,
             "0.001",
             "FlowMonitor delay histogram bin width",
             "s",
             1e-6,
             1},
        },
        {
            {"s1",
             "seed scenario 1: four TCP classes switched on and off, 220 s",
             {{"duration", "220"},
              {"bottleneck-rate", "1Mbps"},
              {"rtt", "40ms"},
              {"classes", "4"},
              {"weights", "126,251,501,1001"},
              {"class-kind", "tcp,tcp,tcp,tcp"},
              {"class-sources", "16,16,8,8"},
              {"class-udp-mbps", "0,0,0,0"},
              {"class-start", "60,40,20,0"},
              {"class-stop", "220,180,140,100"},
              {"ramp-class", "-1"},
              {"rb-u", "0.93"}}},
            {"s2",
             "seed scenario 2: UDP 0.8 Mbps, 16+16 TCP, UDP 0.05 Mbps, 150 s",
             {{"duration", "150"},
              {"rtt", "20ms"},
              {"class-kind", "udp,tcp,tcp,udp"},
              {"class-sources", "1,16,16,1"},
              {"class-udp-mbps", "0.05,0,0,0.8"},
              {"class-start", "0,100,50,0"},
              {"class-stop", "150,150,150,150"}},
             "s1"},
            {"s3",
             "seed scenario 3: real-time class ramping 50..450 TCP sessions vs 8 bulk "
             "TCP on 2 Mbps, 450 s",
             {{"duration", "450"},
              {"bottleneck-rate", "2Mbps"},
              {"classes", "2"},
              {"weights", "251,251"},
              {"class-kind", "tcp,tcp"},
              {"class-sources", "8,450"},
              {"class-udp-mbps", "0,0"},
              {"class-start", "0,0"},
              {"class-stop", "450,450"},
              {"ramp-class", "1"},
              {"ramp-from", "50"},
              {"rb-u", "0.95,0.8"},
              {"msfc-ratio", "1"},
              {"sample-interval", "10"}},
             "s1"},
            {"s1-test",
             "scenario 1 compressed to 44 s (tests)",
             {{"duration", "44"}, {"class-start", "12,8,4,0"}, {"class-stop", "44,36,28,20"}},
             "s1"},
            {"s2-test",
             "scenario 2 compressed to 30 s (tests)",
             {{"duration", "30"}, {"class-start", "0,20,10,0"}, {"class-stop", "30,30,30,30"}},
             "s2"},
            {"s3-test",
             "scenario 3 with 20..120 sessions in 60 s (tests)",
             {{"duration", "60"},
              {"class-sources", "8,120"},
              {"ramp-from", "20"},
              {"class-stop", "60,60"}},
             "s3"},
        },
        "s1"};
}

/// TCP defaults of seed 003, the random-number settings and the ns-3 pass-through values.
void
ConfigureNs3(const Options& opt)
{
    RngSeedManager::SetSeed(static_cast<uint32_t>(opt.GetInt("rng-seed")));
    RngSeedManager::SetRun(static_cast<uint64_t>(opt.GetInt("rng-run")));
    Config::SetDefault("ns3::TcpL4Protocol::SocketType", TypeIdValue(TcpNewReno::GetTypeId()));
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(948)); // 1000-byte packets
    Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(2));
    Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(true));
    Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(MilliSeconds(200)));
    // A send buffer of 8 packets: above the windows these links need (a BDP is 5 packets
    // at 1 Mbit/s and 40 ms, each class has 8 or more sources), and what a
    // stopped source still has to deliver is small.
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(8 * 948));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(1 << 18));
    opt.ApplyNs3Defaults();
}

/// The classes' sources from the per-class options (checked against --classes).
std::vector<ClassSpec>
ResolveClasses(const Options& opt)
{
    const double duration = opt.GetDouble("duration");
    const uint32_t n = static_cast<uint32_t>(opt.GetInt("classes"));
    std::vector<std::string> kinds = SplitList(opt.Get("class-kind"));
    if (kinds.size() != n)
    {
        throw ConfigError("--class-kind=" + opt.Get("class-kind") + " has " +
                          std::to_string(kinds.size()) + " values but --classes=" +
                          std::to_string(n) + ": give tcp or udp per class, class 0 first");
    }
    std::vector<double> nSrc = NumberList(opt, "class-sources", n, 0, 100000);
    std::vector<double> udp = NumberList(opt, "class-udp-mbps", n, 0, 1e5);
    std::vector<double> starts = NumberList(opt, "class-start", n, 0, 1e6);
    std::vector<double> stops = NumberList(opt, "class-stop", n, 0, 1e6);
    NumberList(opt, "weights", n, 1, 1 << 24); // checked here for a message naming the option
    const int rampClass = static_cast<int>(opt.GetInt("ramp-class"));
    if (rampClass >= static_cast<int>(n))
    {
        throw ConfigError("--ramp-class=" + opt.Get("ramp-class") +
                          " is not a class below --classes=" + opt.Get("classes"));
    }
    std::vector<ClassSpec> spec(n);
    for (uint32_t c = 0; c < n; ++c)
    {
        if (kinds[c] != "tcp" && kinds[c] != "udp")
        {
            throw ConfigError("--class-kind: '" + kinds[c] + "' (class " + std::to_string(c) +
                              ") is neither tcp nor udp");
        }
        if (starts[c] >= stops[c] && nSrc[c] > 0)
        {
            throw ConfigError("class " + std::to_string(c) + ": --class-start " + Fmt(starts[c]) +
                              " must be before --class-stop " + Fmt(stops[c]));
        }
        if (kinds[c] == "udp" && nSrc[c] > 0 && !(udp[c] > 0))
        {
            throw ConfigError("class " + std::to_string(c) +
                              " sends UDP: give its rate in --class-udp-mbps");
        }
        ClassSpec& s = spec[c];
        s.kind = kinds[c];
        s.sources = static_cast<uint32_t>(nSrc[c]);
        s.udpMbps = udp[c];
        s.start = starts[c];
        s.stop = std::min(stops[c], duration);
        s.rampFrom = s.sources;
        if (static_cast<int>(c) == rampClass)
        {
            if (s.kind != "tcp")
            {
                throw ConfigError("--ramp-class=" + std::to_string(c) + " must be a tcp class");
            }
            s.rampFrom =
                std::min<uint32_t>(s.sources, static_cast<uint32_t>(opt.GetInt("ramp-from")));
        }
        for (uint32_t k = 0; k < s.sources; ++k)
        {
            double t = s.start;
            if (k >= s.rampFrom)
            {
                t = s.start + (s.stop - s.start) * (k - s.rampFrom + 1) /
                                  static_cast<double>(s.sources - s.rampFrom + 1);
            }
            s.startOf.push_back(t);
        }
    }

    return spec;
}

/// The scheduler under test, with the experiment's classes.
Ptr<QueueDisc>
MakeRoot(const Options& opt, uint32_t n)
{
    const std::string sched = opt.Get("scheduler");
    if (!SchedulerRegistry::Find(sched))
    {
        throw ConfigError("--scheduler=" + sched +
                          ": not a scheduler of this build; valid: " + SchedulerRegistry::Names());
    }
    ObjectFactory f = SchedulerRegistry::MakeFactory(
        sched,
        QueueSize(QueueSizeUnit::PACKETS, static_cast<uint32_t>(opt.GetInt("buffer"))));
    const SchedulerInfo* info = SchedulerRegistry::Find(sched);
    if (info->typeId == "ns3::WeightedClassQueueDisc")
    {
        f.Set("Classes", UintegerValue(n));
        f.Set("Weights", StringValue(opt.Get("weights")));
        f.Set("WredMaxTh", DoubleValue(opt.GetDouble("wred-q")));
        f.Set("WredWeight", DoubleValue(opt.GetDouble("wred-weight")));
        f.Set("RbUtilisation", StringValue(opt.Get("rb-u")));
        f.Set("RbHistory", UintegerValue(static_cast<uint32_t>(opt.GetInt("rb-history"))));
        f.Set("RbTimeConstant", TimeValue(opt.GetTime("rb-tau")));
    }
    else if (info->typeId == "ns3::MsfcQueueDisc")
    {
        f.Set("Prios", UintegerValue(n));
        f.Set("Ratio", DoubleValue(opt.GetDouble("msfc-ratio")));
    }
    Ptr<QueueDisc> root = f.Create<QueueDisc>();
    SchedulerRegistry::PrepareWithoutDevice(root);
    if (auto w = DynamicCast<WeightedClassQueueDisc>(root))
    {
        std::string err = w->ValidateConfiguration();
        if (!err.empty())
        {
            throw ConfigError(err);
        }
        w->AssignStreams(static_cast<int64_t>(opt.GetInt("rng-run")) * 1000);
    }

    return root;
}

/// The dumbbell: host pair c for class c, the scheduler at the DiffServ link X.
Dumbbell
BuildTopology(const Options& opt, uint32_t n, Ptr<QueueDisc> root)
{
    Time access = MilliSeconds(1);
    Time core = opt.GetTime("rtt") / 2 - 2 * access;
    if (!core.IsStrictlyPositive())
    {
        throw ConfigError("--rtt=" + opt.Get("rtt") +
                          " is too small: it must exceed 4ms (the "
                          "host links take 1 ms, two of them each way)");
    }
    return BuildDumbbell(
        {n, opt.GetDataRate("bottleneck-rate"), core, opt.GetDataRate("access-rate"), access, 1000},
        root);
}

/// The sources of every class; returns their labels.
FlowLabels
InstallTraffic(Dumbbell& d, const std::vector<ClassSpec>& spec)
{
    const uint32_t n = spec.size();
    // Sources: class c uses host pair c; DSCP = the default map's code point for class c.
    FlowLabels labels;
    Ptr<UniformRandomVariable> rng = CreateObject<UniformRandomVariable>();
    uint32_t app = 0;
    for (uint32_t c = 0; c < n; ++c)
    {
        const ClassSpec& s = spec[c];
        uint8_t dscp = MsfcQueueDisc::DscpForDefaultClass(c);
        for (uint32_t k = 0; k < s.sources; ++k)
        {
            uint16_t port = static_cast<uint16_t>(10000 + k);
            double start = s.startOf[k] + rng->GetValue(0, 0.1); // no lockstep
            if (start >= s.stop)
            {
                continue;
            }
            if (s.kind == "tcp")
            {
                Ptr<TcpSource> src = CreateObject<TcpSource>();
                src->Setup(InetSocketAddress(d.receiverAddr[c], port), dscp << 2);
                d.senders.Get(c)->AddApplication(src);
                src->SetStartTime(Seconds(start));
                src->SetStopTime(Seconds(s.stop));
                PacketSinkHelper sink("ns3::TcpSocketFactory",
                                      InetSocketAddress(Ipv4Address::GetAny(), port));
                sink.Install(d.receivers.Get(c)).Start(Seconds(0));
            }
            else
            {
                Time gap = Seconds(1000 * 8 / (s.udpMbps * 1e6)); // 1000-byte IP packets
                AddPeriodic(d, c, port, false, 972, gap, gap, dscp, start, s.stop, rng);
            }
            labels.Add(d.receiverAddr[c],
                       port,
                       {app++,
                        s.kind == "tcp" ? "Tcp" : "Udp",
                        static_cast<int64_t>(c),
                        true,
                        s.stop - start});
        }
    }

    return labels;
}

/// Per-class and aggregate time series at the bottleneck: class_timeseries.csv every
/// sample-interval, backlog.csv every backlog-interval.  Lives until the run's files are
/// written.
class TimeSeries
{
  public:
    TimeSeries(const Options& opt, const std::vector<ClassSpec>& spec, Ptr<QueueDisc> root)
        : m_spec(spec),
          m_root(root),
          m_n(spec.size()),
          m_duration(opt.GetDouble("duration")),
          m_interval(opt.GetDouble("sample-interval")),
          m_blInterval(opt.GetDouble("backlog-interval"))
    {
        m_meter.nClasses = m_n;
        m_meter.classifier.Configure(m_n, "", false);
        m_meter.deadline = opt.GetTime("deadline").GetSeconds();
        m_meter.now.assign(m_n, {});
        m_meter.last.assign(m_n, {});
        root->TraceConnectWithoutContext("Enqueue", MakeCallback(&ClassMeter::OnEnqueue, &m_meter));
        root->TraceConnectWithoutContext("Dequeue", MakeCallback(&ClassMeter::OnDequeue, &m_meter));
        root->TraceConnectWithoutContext("DropBeforeEnqueue",
                                         MakeCallback(&ClassMeter::OnDropBefore, &m_meter));
        root->TraceConnectWithoutContext("DropAfterDequeue",
                                         MakeCallback(&ClassMeter::OnDropAfter, &m_meter));
    }

    /// Opens the files and schedules the first samples.
    void Start(RunOutput& out)
    {
        m_ts = &out.Open("class_timeseries.csv");
        *m_ts << "time_s,class,active_sources,offered_bps,rate_bps,deadline_bps,drops,"
                 "backlog_packets,aqm_p\n";
        m_bl = &out.Open("backlog.csv");
        *m_bl << "time_s,backlog_packets\n";
        m_wcq = DynamicCast<WeightedClassQueueDisc>(m_root);
        if (m_wcq)
        {
            EnumValue<WeightedClassQueueDisc::Aqm> aqm;
            m_wcq->GetAttribute("Aqm", aqm);
            m_rb = aqm.Get() == WeightedClassQueueDisc::RB;
        }
        Simulator::Schedule(Seconds(m_interval), &TimeSeries::Sample, this);
        Simulator::Schedule(Seconds(m_blInterval), &TimeSeries::SampleBacklog, this);
    }

  private:
    void Sample()
    {
        double t = Simulator::Now().GetSeconds();
        for (uint32_t c = 0; c < m_n; ++c)
        {
            auto& cur = m_meter.now[c];
            auto& prev = m_meter.last[c];
            uint32_t active = 0;
            for (double st : m_spec[c].startOf)
            {
                active += (st <= t && t < m_spec[c].stop) ? 1 : 0;
            }
            *m_ts << Fmt(t) << "," << c << "," << active << ","
                  << Fmt((cur.offeredBytes - prev.offeredBytes) * 8.0 / m_interval) << ","
                  << Fmt((cur.servedBytes - prev.servedBytes) * 8.0 / m_interval) << ","
                  << Fmt((cur.deadlineBytes - prev.deadlineBytes) * 8.0 / m_interval) << ","
                  << (cur.drops - prev.drops) << "," << cur.backlog << ","
                  << (m_rb ? Fmt(m_wcq->GetRateBasedAqm().Probability(c)) : std::string("-1"))
                  << "\n";
            prev = cur;
        }
        if (t + m_interval <= m_duration + 1e-9)
        {
            Simulator::Schedule(Seconds(m_interval), &TimeSeries::Sample, this);
        }
    }

    void SampleBacklog()
    {
        *m_bl << Fmt(Simulator::Now().GetSeconds()) << "," << m_root->GetNPackets() << "\n";
        if (Simulator::Now().GetSeconds() + m_blInterval <= m_duration + 1e-9)
        {
            Simulator::Schedule(Seconds(m_blInterval), &TimeSeries::SampleBacklog, this);
        }
    }

    const std::vector<ClassSpec>& m_spec;
    Ptr<QueueDisc> m_root;
    uint32_t m_n;
    double m_duration;
    double m_interval;
    double m_blInterval;
    ClassMeter m_meter;
    std::ofstream* m_ts{nullptr};
    std::ofstream* m_bl{nullptr};
    Ptr<WeightedClassQueueDisc> m_wcq;
    bool m_rb{false};
};

int
Run(int argc, char** argv)
{
    SimulationRun run;
    Options opt(Spec());
    std::optional<Options::Request> req = ParseCommandLine(opt, argc, argv);
    if (!req)
    {
        return 0;
    }
    ConfigureNs3(opt);
    const std::vector<ClassSpec> spec = ResolveClasses(opt);
    const uint32_t n = spec.size();

    // topology, traffic
    Ptr<QueueDisc> root = MakeRoot(opt, n);
    Dumbbell d = BuildTopology(opt, n, root);
    FlowLabels labels = InstallTraffic(d, spec);

    // measurement
    TimeSeries series(opt, spec, root);
    if (CheckOnly(*req))
    {
        return 0;
    }
    RunOutput out(req->outDir); // checks the directory before the simulation
    series.Start(out);
    FlowMeasurement flows(opt.GetDouble("delay-bin"), opt.GetDouble("delay-bin"));
    run.Run(opt.GetDouble("duration"), true, 1e-6); // the samples at exactly `duration` run too
    flows.Write(out, labels, 0.0);
    const std::string sched = opt.Get("scheduler");
    FinishRun(out, opt, sched, run, {BottleneckRecord(d, sched)});
    return 0;
}

} // namespace

int
main(int argc, char** argv)
{
    return Main("scenario-class-aqm", [&] { return Run(argc, argv); });
}
