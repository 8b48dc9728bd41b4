// Options of the scenario programs (docs/data-format.md).
//
// A scenario declares its options and presets as data (a table of Param and one of
// Preset).  Values come from, in increasing precedence: the parameter defaults, a preset
// (--preset=NAME, or the scenario's default preset), a config file (--config=FILE,
// "key = value" lines) and the command line (--key=value).  Keys of the form
// ns3::Type::Attribute pass straight through to ns3::Config::SetDefault.  Every value is
// validated; a bad one raises ConfigError, which the program turns into exit code 2.
#ifndef MSFC_SCENARIOS_LIB_OPTIONS_H
#define MSFC_SCENARIOS_LIB_OPTIONS_H

#include "ns3/attribute.h"
#include "ns3/data-rate.h"
#include "ns3/nstime.h"

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace msfc
{
namespace scenario
{

/// A configuration problem: the message names the option or file, the bad value
/// and what is allowed.  Programs exit with code 2 on it.
class ConfigError : public std::runtime_error
{
  public:
    using std::runtime_error::runtime_error;
};

/// The type of an option, as --describe names it.
enum class ParamType
{
    Int,
    Double,
    Bool,
    String,
    Choice,
    DataRate,
    Time,
    Path
};

/// The --describe name of a type ("int", "datarate", ...).
const char* ParamTypeName(ParamType t);

/// One option of a scenario.
struct Param
{
    std::string name;
    ParamType type;
    std::string def; ///< default, as a string in the option's own syntax
    std::string help;
    std::string unit{};
    std::optional<double> min{}; ///< for int/double; bit/s for datarate; seconds for time
    std::optional<double> max{};
    std::vector<std::string> choices{};
    /// The schedulers (values of the option `scheduler`) whose runs the option affects; empty:
    /// every run.  Under another scheduler it changes nothing (msfc refuses or drops it).
    std::vector<std::string> schedulers{};
    /// The scheduler attribute the option sets (ns3::Type::Attribute), "" for none; made by
    /// AttributeOption, which takes type, default and range from the attribute.
    std::string sets{};
};

/**
 * A scenario option that sets a scheduler attribute. Its type, default and range are the
 * attribute's (the TypeId's initial value and checker), declared nowhere else; the option's
 * values are also checked by the attribute's checker.
 * @param name option name
 * @param attribute ns3::Type::Attribute (a programming error if ns-3 has none: throws)
 * @param help what the option does (the attribute it sets is added by --help and --describe)
 * @param schedulers the schedulers whose runs it affects (empty: every run)
 * @param max a maximum of the scenario's own below the attribute's (say why in `help`)
 */
Param AttributeOption(std::string name,
                      const std::string& attribute,
                      std::string help,
                      std::vector<std::string> schedulers = {},
                      std::optional<double> max = std::nullopt);

/// Option values as (name, value) pairs, in the order they are listed.
using Values = std::vector<std::pair<std::string, std::string>>;

/// A named set of option values.
struct Preset
{
    std::string name;
    std::string help;
    Values values;      ///< the values; with `base`, they replace or extend the base's values
    std::string base{}; ///< an earlier preset this one starts from ("" for none)
};

/// Everything a scenario declares about its options: the data behind --describe.
struct ScenarioSpec
{
    std::string scenario;      ///< name, as in scenario-<name>
    std::string description;   ///< one line
    std::vector<Param> params; ///< the options, in listing order
    std::vector<Preset> presets;
    std::string defaultPreset;
};

std::string Trim(const std::string& s);
/// A line of a config or flow-type file without its '#' comment.
std::string StripComment(const std::string& line);
std::string Lower(std::string s);
/// Parses an ns-3 DataRate string ("100Mbps", "1.5Gb/s", "64000bps"); false if invalid.
bool ParseDataRate(const std::string& s, uint64_t* bps);
/// Parses an ns-3 Time string ("5ms", "1.25ms", "100", "2s"); false if invalid.
bool ParseTime(const std::string& s, double* seconds);
bool ParseBool(const std::string& s, bool* out);
bool ParseInt(const std::string& s, int64_t* out);
bool ParseDouble(const std::string& s, double* out);
/// Checks `value` against an ns-3 attribute checker without letting ns-3 abort on
/// malformed numbers or times.  Returns "" if valid, else what was expected.
std::string CheckAttributeValue(const ns3::Ptr<const ns3::AttributeChecker>& checker,
                                const std::string& value);

/// The option set of one scenario program, with the values a run resolved.
class Options
{
  public:
    /// Checks the spec's presets (a bad value there is a programming error: throws).
    explicit Options(ScenarioSpec spec);

    const std::vector<Param>& Params() const
    {
        return m_spec.params;
    }

    /// What the command line asked for.
    struct Request
    {
        bool describe = false;
        bool help = false;
        bool check = false; ///< --check: validate the configuration, simulate nothing
        std::string outDir;
        std::string preset;
        std::string configFile;
    };

    /// Parses argv, applies preset, config file and command line options.
    /// Throws ConfigError on any problem.
    Request Parse(int argc, char** argv);

    /// Applies the ns3::Type::Attribute pass-through values (in the order given).
    void ApplyNs3Defaults() const;
    /// True if an ns3:: pass-through key was given for this exact attribute path.
    bool HasNs3Override(const std::string& path) const;

    const std::string& PresetName() const
    {
        return m_preset;
    }

    const std::string& Scenario() const
    {
        return m_spec.scenario;
    }

    std::string Get(const std::string& name) const;
    /// Where an option's value came from: "the default", "preset 'NAME'", a config file line
    /// or the command line (the `where` of the error messages).
    std::string Source(const std::string& name) const;
    /// True if the option was set in a config file or on the command line.
    bool GivenByUser(const std::string& name) const;
    int64_t GetInt(const std::string& name) const;
    double GetDouble(const std::string& name) const;
    bool GetBool(const std::string& name) const;
    ns3::DataRate GetDataRate(const std::string& name) const;
    ns3::Time GetTime(const std::string& name) const;

    /// {"option": value, ...} of every option, resolved.
    std::string ResolvedJson() const;
    /// The --describe document.
    std::string DescribeJson() const;
    /// Human-readable --help text.
    std::string HelpText(const std::string& program) const;

  private:
    /// JSON value of an option in its natural type.
    std::string JsonValue(const Param& p, const std::string& v) const;
    const Preset* FindPreset(const std::string& name) const;
    /// A preset's values with its base presets' values resolved.
    Values PresetValues(const Preset& p) const;
    std::string PresetNames() const;
    std::string ValidKeys() const;
    /// Sets an option (or records an ns3:: pass-through); `where` names the source.
    void Set(const std::string& key, const std::string& value, const std::string& where);
    /// Validates `value` for option `key` and returns its canonical spelling.
    std::string Normalize(const std::string& key,
                          const std::string& raw,
                          const std::string& where) const;
    void ReadConfigFile(const std::string& path);

    ScenarioSpec m_spec;
    std::map<std::string, size_t> m_index;
    std::vector<Values> m_presetValues; ///< resolved values of each preset
    std::string m_preset;
    std::map<std::string, std::string> m_values;
    std::map<std::string, std::string> m_source; ///< where each value of m_values came from
    std::set<std::string> m_userSet;             ///< options set by a config file or argv (Set)
    Values m_ns3;
};

} // namespace scenario
} // namespace msfc

#endif
