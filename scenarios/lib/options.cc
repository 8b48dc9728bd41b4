#include "options.h"

#include "json.h"

#include "ns3/config.h"
#include "ns3/double.h"
#include "ns3/string.h"
#include "ns3/type-id.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <regex>
#include <sstream>

namespace msfc
{
namespace scenario
{

const char*
ParamTypeName(ParamType t)
{
    switch (t)
    {
    case ParamType::Int:
        return "int";
    case ParamType::Double:
        return "double";
    case ParamType::Bool:
        return "bool";
    case ParamType::String:
        return "string";
    case ParamType::Choice:
        return "choice";
    case ParamType::DataRate:
        return "datarate";
    case ParamType::Time:
        return "time";
    case ParamType::Path:
        return "path";
    }
    return "string";
}

std::string
Trim(const std::string& s)
{
    const char* ws = " \t\r\n";
    auto b = s.find_first_not_of(ws);
    if (b == std::string::npos)
    {
        return "";
    }
    auto e = s.find_last_not_of(ws);
    return s.substr(b, e - b + 1);
}

/// A line of a config or flow-type file without its '#' comment.
std::string
StripComment(const std::string& line)
{
    auto hash = line.find('#');
    return hash == std::string::npos ? line : line.substr(0, hash);
}

std::string
Lower(std::string s)
{
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
    return s;
}

/// Parses an ns-3 DataRate string ("100Mbps", "1.5Gb/s", "64000bps"); false if invalid.
bool
ParseDataRate(const std::string& s, uint64_t* bps)
{
    static const std::regex re(R"(^\s*[0-9]*\.?[0-9]+([eE][-+]?[0-9]+)?\s*[A-Za-z/]+\s*$)");
    if (!std::regex_match(s, re))
    {
        return false;
    }
    std::istringstream is(Trim(s));
    ns3::DataRate r;
    is >> r;
    if (is.fail())
    {
        return false;
    }
    *bps = r.GetBitRate();
    return true;
}

/// Parses an ns-3 Time string ("5ms", "1.25ms", "100", "2s"); false if invalid.
bool
ParseTime(const std::string& s, double* seconds)
{
    static const std::regex re(
        R"(^\s*([0-9]*\.?[0-9]+([eE][-+]?[0-9]+)?)\s*(s|ms|us|ns|ps|fs|min|h|d|y)?\s*$)");
    std::smatch m;
    if (!std::regex_match(s, m, re))
    {
        return false;
    }
    double v = std::stod(m[1].str());
    std::string unit = m[3].matched ? m[3].str() : "s";
    static const std::map<std::string, double> scale = {{"s", 1.0},
                                                        {"ms", 1e-3},
                                                        {"us", 1e-6},
                                                        {"ns", 1e-9},
                                                        {"ps", 1e-12},
                                                        {"fs", 1e-15},
                                                        {"min", 60.0},
                                                        {"h", 3600.0},
                                                        {"d", 86400.0},
                                                        {"y", 365.0 * 86400.0}};
    *seconds = v * scale.at(unit);
    return std::isfinite(*seconds);
}

bool
ParseBool(const std::string& s, bool* out)
{
    std::string l = Lower(Trim(s));
    if (l == "true" || l == "1" || l == "yes" || l == "on")
    {
        *out = true;
        return true;
    }
    if (l == "false" || l == "0" || l == "no" || l == "off")
    {
        *out = false;
        return true;
    }
    return false;
}

bool
ParseInt(const std::string& s, int64_t* out)
{
    std::string t = Trim(s);
    if (t.empty())
    {
        return false;
    }
    size_t pos = 0;
    try
    {
        long long v = std::stoll(t, &pos, 10);
        if (pos != t.size())
        {
            return false;
        }
        *out = v;
        return true;
    }
    catch (const std::exception&)
    {
        return false;
    }
}

bool
ParseDouble(const std::string& s, double* out)
{
    std::string t = Trim(s);
    if (t.empty())
    {
        return false;
    }
    size_t pos = 0;
    try
    {
        double v = std::stod(t, &pos);
        if (pos != t.size() || !std::isfinite(v))
        {
            return false;
        }
        *out = v;
        return true;
    }
    catch (const std::exception&)
    {
        return false;
    }
}

/// Checks `value` against an ns-3 attribute checker without letting ns-3 abort on
/// malformed numbers or times.  Returns "" if valid, else what was expected.
std::string
CheckAttributeValue(const ns3::Ptr<const ns3::AttributeChecker>& checker, const std::string& value)
{
    const std::string vt = checker->GetValueTypeName();
    const std::string expected = checker->GetUnderlyingTypeInformation();
    std::string v = Trim(value);
    bool ok = true;
    if (vt == "ns3::DoubleValue")
    {
        double d = 0;
        ok = ParseDouble(v, &d);
    }
    else if (vt == "ns3::UintegerValue")
    {
        int64_t i = 0;
        ok = ParseInt(v, &i) && i >= 0;
    }
    else if (vt == "ns3::IntegerValue")
    {
        int64_t i = 0;
        ok = ParseInt(v, &i);
    }
    else if (vt == "ns3::TimeValue")
    {
        double sec = 0;
        ok = ParseTime(v, &sec);
    }
    else if (vt == "ns3::DataRateValue")
    {
        uint64_t bps = 0;
        ok = ParseDataRate(v, &bps);
    }
    else if (vt == "ns3::QueueSizeValue")
    {
        static const std::regex re(R"(^[0-9]+(\.[0-9]+)?\s*(k|K|M|G|Ki|Mi|Gi)?(p|B)$)");
        ok = std::regex_match(v, re);
    }
    if (!ok || !checker->CreateValidValue(ns3::StringValue(v)))
    {
        return "expected " + expected;
    }
    return "";
}

namespace
{

void
SplitNs3Key(const std::string& key, std::string* type, std::string* attr, const std::string& where)
{
    auto pos = key.rfind("::");
    if (pos == std::string::npos || pos <= 5)
    {
        throw ConfigError(where + ": '" + key +
                          "' is not an ns-3 attribute path; write ns3::Type::Attribute");
    }
    *type = key.substr(0, pos);
    *attr = key.substr(pos + 2);
}

void
CheckNs3Default(const std::string& key, const std::string& value, const std::string& where)
{
    std::string type;
    std::string attr;
    SplitNs3Key(key, &type, &attr, where);
    ns3::TypeId tid;
    if (!ns3::TypeId::LookupByNameFailSafe(type, &tid))
    {
        throw ConfigError(where + ": ns-3 has no type '" + type + "' (in '" + key +
                          "'); check the spelling, e.g. ns3::FqCoDelQueueDisc");
    }
    ns3::TypeId::AttributeInformation info;
    if (!tid.LookupAttributeByName(attr, &info))
    {
        std::string names;
        for (ns3::TypeId t = tid;; t = t.GetParent())
        {
            for (uint32_t i = 0; i < t.GetAttributeN(); ++i)
            {
                names += (names.empty() ? "" : ", ") + t.GetAttribute(i).name;
            }
            if (t == t.GetParent())
            {
                break;
            }
        }
        throw ConfigError(where + ": " + type + " has no attribute '" + attr +
                          "'; its attributes are: " + names);
    }
    std::string why = CheckAttributeValue(info.checker, value);
    if (!why.empty())
    {
        throw ConfigError(where + ": '" + value + "' is not a valid value for " + key + " (" + why +
                          ")");
    }
}

void
ApplyNs3Default(const std::string& key, const std::string& value)
{
    if (!ns3::Config::SetDefaultFailSafe(key, ns3::StringValue(value)))
    {
        throw ConfigError("could not set ns-3 default " + key + "=" + value);
    }
}

/// The attribute an option sets (a programming error if ns-3 has none).
ns3::TypeId::AttributeInformation
AttributeOf(const std::string& path)
{
    std::string type;
    std::string attr;
    SplitNs3Key(path, &type, &attr, "scenario option");
    ns3::TypeId tid;
    ns3::TypeId::AttributeInformation info;
    if (!ns3::TypeId::LookupByNameFailSafe(type, &tid) || !tid.LookupAttributeByName(attr, &info))
    {
        throw std::logic_error("scenario option sets " + path + ", which ns-3 does not have");
    }
    return info;
}

/// A double checker prints its limits with 6 digits ("double 1.52588e-05:16"): the exact limit
/// near `approx`, the accepted value closest to the refused side, found by asking the checker.
double
ExactDoubleLimit(const ns3::Ptr<const ns3::AttributeChecker>& checker, double approx, bool lower)
{
    auto ok = [&](double x) { return checker->Check(ns3::DoubleValue(x)); };
    const double step = std::max(std::abs(approx) * 1e-5, std::numeric_limits<double>::min());
    double in = lower ? approx + step : approx - step;
    double out = lower ? approx - step : approx + step;
    if (!std::isfinite(approx) || !ok(in) || ok(out))
    {
        return approx; // not a rounded finite limit
    }
    while (true)
    {
        const double mid = in + (out - in) / 2;
        if (mid == in || mid == out)
        {
            return in;
        }
        (ok(mid) ? in : out) = mid;
    }
}

} // namespace

Param
AttributeOption(std::string name,
                const std::string& attribute,
                std::string help,
                std::vector<std::string> schedulers,
                std::optional<double> max)
{
    const ns3::TypeId::AttributeInformation info = AttributeOf(attribute);
    const std::string vt = info.checker->GetValueTypeName();
    Param p{std::move(name), ParamType::Int, "", std::move(help)};
    if (vt == "ns3::DoubleValue")
    {
        p.type = ParamType::Double;
    }
    else if (vt != "ns3::UintegerValue" && vt != "ns3::IntegerValue")
    {
        throw std::logic_error("option '" + p.name + "': " + attribute + " is a " + vt +
                               "; AttributeOption takes integer and double attributes");
    }
    p.def = info.initialValue->SerializeToString(info.checker);
    // the checker's limits, "<type> <min>:<max>"
    const std::string range = info.checker->GetUnderlyingTypeInformation();
    const size_t sp = range.rfind(' ');
    const size_t colon = range.rfind(':');
    double lo = 0;
    double hi = 0;
    if (sp == std::string::npos || colon == std::string::npos || colon < sp ||
        !ParseDouble(range.substr(sp + 1, colon - sp - 1), &lo) ||
        !ParseDouble(range.substr(colon + 1), &hi))
    {
        throw std::logic_error("option '" + p.name + "': cannot read the limits of " + attribute +
                               " from '" + range + "'");
    }
    if (p.type == ParamType::Double)
    {
        lo = ExactDoubleLimit(info.checker, lo, true);
        hi = ExactDoubleLimit(info.checker, hi, false);
    }
    if (max && *max > hi)
    {
        throw std::logic_error("option '" + p.name + "': its maximum is above " + attribute + "'s");
    }
    p.min = lo;
    p.max = max ? *max : hi;
    p.schedulers = std::move(schedulers);
    p.sets = attribute;
    return p;
}

Options::Options(ScenarioSpec spec)
    : m_spec(std::move(spec))
{
    for (size_t i = 0; i < m_spec.params.size(); ++i)
    {
        m_index[m_spec.params[i].name] = i;
    }
    for (const auto& p : m_spec.params)
    {
        for (const auto& s : p.schedulers)
        {
            // An option limited to a scheduler the scenario does not offer is a programming
            // error.
            Normalize("scheduler", s, "option '" + p.name + "'");
        }
    }
    for (const auto& p : m_spec.presets)
    {
        Values values = PresetValues(p);
        for (const auto& [k, v] : values)
        {
            // A preset with a bad value is a programming error; fail loudly.
            Normalize(k, v, "preset '" + p.name + "'");
        }
        m_presetValues.push_back(std::move(values));
    }
}

Values
Options::PresetValues(const Preset& p) const
{
    if (p.base.empty())
    {
        return p.values;
    }
    const Preset* base = FindPreset(p.base);
    if (base == nullptr || base >= &p)
    {
        throw std::logic_error("preset '" + p.name + "' starts from '" + p.base +
                               "', which is not an earlier preset");
    }
    Values values = PresetValues(*base);
    for (const auto& [k, v] : p.values)
    {
        auto it = std::find_if(values.begin(), values.end(), [&k](const auto& kv) {
            return kv.first == k;
        });
        if (it != values.end())
        {
            it->second = v;
        }
        else
        {
            values.emplace_back(k, v);
        }
    }
    return values;
}

Options::Request
Options::Parse(int argc, char** argv)
{
    Request req;
    std::vector<std::pair<std::string, std::string>> cli;
    for (int i = 1; i < argc; ++i)
    {
        std::string a = argv[i];
        if (a == "--describe")
        {
            req.describe = true;
            continue;
        }
        if (a == "--help" || a == "-h")
        {
            req.help = true;
            continue;
        }
        if (a == "--check")
        {
            req.check = true;
            continue;
        }
        if (a.rfind("--", 0) != 0)
        {
            throw ConfigError("unexpected argument '" + a +
                              "': options are written --name=value (see --help)");
        }
        auto eq = a.find('=');
        std::string key = a.substr(2, eq == std::string::npos ? std::string::npos : eq - 2);
        if (eq == std::string::npos)
        {
            // A bare --flag is accepted for bool options only.
            auto it = m_index.find(key);
            if (it != m_index.end() && m_spec.params[it->second].type == ParamType::Bool)
            {
                cli.emplace_back(key, "true");
                continue;
            }
            throw ConfigError("option '--" + key + "' needs a value: write --" + key +
                              "=VALUE (see --help)");
        }
        std::string value = a.substr(eq + 1);
        if (key == "out")
        {
            req.outDir = value;
        }
        else if (key == "preset")
        {
            req.preset = value;
        }
        else if (key == "config")
        {
            req.configFile = value;
        }
        else
        {
            cli.emplace_back(key, value);
        }
    }
    if (req.describe || req.help)
    {
        return req;
    }

    // 1. defaults
    for (const auto& p : m_spec.params)
    {
        m_values[p.name] = p.def;
        m_source[p.name] = "the default";
    }
    // 2. preset
    std::string preset = req.preset.empty() ? m_spec.defaultPreset : req.preset;
    const Preset* pr = FindPreset(preset);
    if (pr == nullptr)
    {
        throw ConfigError("unknown preset '" + preset + "'; valid presets: " + PresetNames());
    }
    m_preset = preset;
    for (const auto& [k, v] : m_presetValues[pr - m_spec.presets.data()])
    {
        m_values[k] = Normalize(k, v, "preset '" + preset + "'");
        m_source[k] = "preset '" + preset + "'";
    }
    // 3. config file
    if (!req.configFile.empty())
    {
        ReadConfigFile(req.configFile);
    }
    // 4. command line
    for (const auto& [k, v] : cli)
    {
        Set(k, v, "command line option --" + k);
    }
    return req;
}

void
Options::ApplyNs3Defaults() const
{
    for (const auto& [k, v] : m_ns3)
    {
        ApplyNs3Default(k, v);
    }
}

bool
Options::HasNs3Override(const std::string& path) const
{
    for (const auto& kv : m_ns3)
    {
        if (kv.first == path)
        {
            return true;
        }
    }
    return false;
}

std::string
Options::Get(const std::string& name) const
{
    auto it = m_values.find(name);
    if (it == m_values.end())
    {
        throw std::logic_error("no option named " + name);
    }
    return it->second;
}

int64_t
Options::GetInt(const std::string& name) const
{
    int64_t v = 0;
    ParseInt(Get(name), &v);
    return v;
}

double
Options::GetDouble(const std::string& name) const
{
    double v = 0;
    ParseDouble(Get(name), &v);
    return v;
}

bool
Options::GetBool(const std::string& name) const
{
    bool v = false;
    ParseBool(Get(name), &v);
    return v;
}

ns3::DataRate
Options::GetDataRate(const std::string& name) const
{
    uint64_t v = 0;
    ParseDataRate(Get(name), &v);
    return ns3::DataRate(v);
}

ns3::Time
Options::GetTime(const std::string& name) const
{
    double s = 0;
    ParseTime(Get(name), &s);
    return ns3::Seconds(s);
}

std::string
Options::JsonValue(const Param& p, const std::string& v) const
{
    switch (p.type)
    {
    case ParamType::Int: {
        int64_t i = 0;
        ParseInt(v, &i);
        return std::to_string(i);
    }
    case ParamType::Double: {
        double d = 0;
        ParseDouble(v, &d);
        return json::Number(d);
    }
    case ParamType::Bool: {
        bool b = false;
        ParseBool(v, &b);
        return b ? "true" : "false";
    }
    default:
        return json::Quote(v);
    }
}

std::string
Options::ResolvedJson() const
{
    std::ostringstream os;
    os << "{";
    bool first = true;
    for (const auto& p : m_spec.params)
    {
        os << (first ? "" : ", ") << json::Quote(p.name) << ": " << JsonValue(p, Get(p.name));
        first = false;
    }
    for (const auto& [k, v] : m_ns3)
    {
        os << (first ? "" : ", ") << json::Quote(k) << ": " << json::Quote(v);
        first = false;
    }
    os << "}";
    return os.str();
}

std::string
Options::DescribeJson() const
{
    std::ostringstream os;
    os << "{\n  \"scenario\": " << json::Quote(m_spec.scenario)
       << ",\n  \"description\": " << json::Quote(m_spec.description) << ",\n  \"params\": [\n";
    for (size_t i = 0; i < m_spec.params.size(); ++i)
    {
        const auto& p = m_spec.params[i];
        os << "    {\"name\": " << json::Quote(p.name) << ", \"type\": \"" << ParamTypeName(p.type)
           << "\", \"default\": " << JsonValue(p, p.def);
        if (p.min)
        {
            os << ", \"min\": " << json::Number(*p.min);
        }
        if (p.max)
        {
            os << ", \"max\": " << json::Number(*p.max);
        }
        if (!p.unit.empty())
        {
            os << ", \"unit\": " << json::Quote(p.unit);
        }
        if (!p.choices.empty())
        {
            os << ", \"choices\": [";
            for (size_t c = 0; c < p.choices.size(); ++c)
            {
                os << (c ? ", " : "") << json::Quote(p.choices[c]);
            }
            os << "]";
        }
        if (!p.schedulers.empty())
        {
            os << ", \"schedulers\": [";
            for (size_t c = 0; c < p.schedulers.size(); ++c)
            {
                os << (c ? ", " : "") << json::Quote(p.schedulers[c]);
            }
            os << "]";
        }
        if (!p.sets.empty())
        {
            os << ", \"sets\": " << json::Quote(p.sets);
        }
        os << ", \"help\": " << json::Quote(p.help) << "}"
           << (i + 1 < m_spec.params.size() ? "," : "") << "\n";
    }
    os << "  ],\n  \"presets\": {\n";
    for (size_t i = 0; i < m_spec.presets.size(); ++i)
    {
        const Values& values = m_presetValues[i];
        os << "    " << json::Quote(m_spec.presets[i].name) << ": {";
        for (size_t j = 0; j < values.size(); ++j)
        {
            const auto& [k, v] = values[j];
            os << (j ? ", " : "") << json::Quote(k) << ": "
               << JsonValue(m_spec.params[m_index.at(k)], v);
        }
        os << "}" << (i + 1 < m_spec.presets.size() ? "," : "") << "\n";
    }
    os << "  },\n  \"preset_help\": {\n";
    for (size_t i = 0; i < m_spec.presets.size(); ++i)
    {
        os << "    " << json::Quote(m_spec.presets[i].name) << ": "
           << json::Quote(m_spec.presets[i].help) << (i + 1 < m_spec.presets.size() ? "," : "")
           << "\n";
    }
    os << "  },\n  \"default_preset\": " << json::Quote(m_spec.defaultPreset) << "\n}\n";
    return os.str();
}

std::string
Options::HelpText(const std::string& program) const
{
    std::ostringstream os;
    os << program << ": " << m_spec.description << "\n\n"
       << "Usage: " << program
       << " --out=DIR [--preset=NAME] [--config=FILE] [--option=value ...]\n"
       << "       " << program << " --describe     (options as JSON)\n"
       << "       " << program
       << " --check [options]   (validate the configuration, exit 0 if valid, simulate nothing)\n\n"
       << "Presets (default " << m_spec.defaultPreset << "):\n";
    for (const auto& pr : m_spec.presets)
    {
        os << "  " << pr.name << ": " << pr.help << "\n";
    }
    os << "\nOptions:\n";
    for (const auto& p : m_spec.params)
    {
        os << "  --" << p.name << "=<" << ParamTypeName(p.type) << ">  " << p.help;
        if (!p.sets.empty())
        {
            os << " (sets " << p.sets << ")";
        }
        if (!p.choices.empty())
        {
            os << " [";
            for (size_t c = 0; c < p.choices.size(); ++c)
            {
                os << (c ? "|" : "") << p.choices[c];
            }
            os << "]";
        }
        const bool showUnit =
            !p.unit.empty() && (p.type == ParamType::Int || p.type == ParamType::Double);
        os << " (default " << (p.def.empty() ? "\"\"" : p.def) << (showUnit ? " " : "")
           << (showUnit ? p.unit : "") << ")\n";
    }
    os << "\nns-3 attribute defaults pass through: --ns3::Type::Attribute=value "
          "(e.g. --ns3::FqCoDelQueueDisc::Flows=256).\n";
    return os.str();
}

const Preset*
Options::FindPreset(const std::string& name) const
{
    for (const auto& p : m_spec.presets)
    {
        if (p.name == name)
        {
            return &p;
        }
    }
    return nullptr;
}

std::string
Options::PresetNames() const
{
    std::string s;
    for (const auto& p : m_spec.presets)
    {
        s += (s.empty() ? "" : ", ") + p.name;
    }
    return s;
}

std::string
Options::ValidKeys() const
{
    std::string s;
    for (const auto& p : m_spec.params)
    {
        s += (s.empty() ? "" : ", ") + p.name;
    }
    return s + " (and ns3::Type::Attribute pass-through keys)";
}

void
Options::Set(const std::string& key, const std::string& value, const std::string& where)
{
    if (key.rfind("ns3::", 0) == 0)
    {
        // Check now, so a typo is reported before anything runs.
        CheckNs3Default(key, value, where);
        m_ns3.emplace_back(key, value);
        return;
    }
    if (m_index.find(key) == m_index.end())
    {
        throw ConfigError(where + ": unknown option '" + key + "'; valid options: " + ValidKeys());
    }
    m_values[key] = Normalize(key, value, where);
    m_source[key] = where;
    m_userSet.insert(key);
}

std::string
Options::Source(const std::string& name) const
{
    auto it = m_source.find(name);
    return it == m_source.end() ? std::string() : it->second;
}

bool
Options::GivenByUser(const std::string& name) const
{
    return m_userSet.count(name) > 0;
}

std::string
Options::Normalize(const std::string& key, const std::string& raw, const std::string& where) const
{
    auto it = m_index.find(key);
    if (it == m_index.end())
    {
        throw ConfigError(where + ": unknown option '" + key + "'; valid options: " + ValidKeys());
    }
    const Param& p = m_spec.params[it->second];
    std::string v = Trim(raw);
    auto bad = [&](const std::string& expected) {
        return ConfigError(where + ": option '" + key + "' has the bad value '" + raw +
                           "'; expected " + expected);
    };
    auto range = [&]() {
        std::ostringstream os;
        if (p.min && p.max)
        {
            os << "between " << json::Number(*p.min) << " and " << json::Number(*p.max);
        }
        else if (p.min)
        {
            os << "at least " << json::Number(*p.min);
        }
        else if (p.max)
        {
            os << "at most " << json::Number(*p.max);
        }
        if (!p.unit.empty())
        {
            os << " " << p.unit;
        }
        return os.str();
    };
    auto inRange = [&](double x) { return (!p.min || x >= *p.min) && (!p.max || x <= *p.max); };
    switch (p.type)
    {
    case ParamType::Int: {
        int64_t i = 0;
        if (!ParseInt(v, &i))
        {
            throw bad("an integer " + range());
        }
        if (!inRange(static_cast<double>(i)))
        {
            throw bad("an integer " + range());
        }
        return std::to_string(i);
    }
    case ParamType::Double: {
        double d = 0;
        if (!ParseDouble(v, &d) || !inRange(d))
        {
            throw bad("a number " + range());
        }
        return v;
    }
    case ParamType::Bool: {
        bool b = false;
        if (!ParseBool(v, &b))
        {
            throw bad("true or false");
        }
        return b ? "true" : "false";
    }
    case ParamType::Choice: {
        for (const auto& c : p.choices)
        {
            if (Lower(c) == Lower(v))
            {
                return c;
            }
        }
        std::string all;
        for (const auto& c : p.choices)
        {
            all += (all.empty() ? "" : ", ") + c;
        }
        throw bad("one of " + all);
    }
    case ParamType::DataRate: {
        uint64_t bps = 0;
        if (!ParseDataRate(v, &bps) || !inRange(static_cast<double>(bps)))
        {
            std::string r;
            if (p.min || p.max)
            {
                r = " with ";
                if (p.min)
                {
                    r += "at least " + json::Number(*p.min) + " bit/s";
                }
                if (p.min && p.max)
                {
                    r += " and ";
                }
                if (p.max)
                {
                    r += "at most " + json::Number(*p.max) + " bit/s";
                }
            }
            throw bad("an ns-3 data rate such as 100Mbps, 1Gbps or 512kbps" + r);
        }
        return v;
    }
    case ParamType::Time: {
        double s = 0;
        if (!ParseTime(v, &s) || !inRange(s))
        {
            throw bad(
                "a time such as 5ms, 1.25ms or 2s" +
                ((p.min || p.max) ? std::string(", ") + range() + " (in seconds)" : std::string()));
        }
        return v;
    }
    case ParamType::Path:
    case ParamType::String:
        return v;
    }
    return v;
}

void
Options::ReadConfigFile(const std::string& path)
{
    std::ifstream in(path);
    if (!in)
    {
        throw ConfigError("cannot read config file '" + path +
                          "': check the path given to --config");
    }
    std::string line;
    int n = 0;
    while (std::getline(in, line))
    {
        ++n;
        line = Trim(StripComment(line));
        if (line.empty())
        {
            continue;
        }
        std::string where = "config file " + path + ", line " + std::to_string(n);
        auto eq = line.find('=');
        if (eq == std::string::npos)
        {
            throw ConfigError(where + ": expected 'key = value', got '" + line + "'");
        }
        std::string key = Trim(line.substr(0, eq));
        std::string value = Trim(line.substr(eq + 1));
        if (key == "preset" || key == "out" || key == "config")
        {
            throw ConfigError(where + ": '" + key +
                              "' cannot be set in a config file; give it on the command line");
        }
        Set(key, value, where);
    }
}

} // namespace scenario
} // namespace msfc
