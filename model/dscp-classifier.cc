/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "dscp-classifier.h"

#include "ns3/abort.h"
#include "ns3/socket.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <sstream>

namespace ns3
{

namespace
{

/// DSCP code point names accepted in DscpMap (upper case; the header's are lower case).
const std::map<std::string, uint8_t>&
DscpNames()
{
    static const std::map<std::string, uint8_t> names = [] {
        struct Name
        {
            const char* name;
            uint8_t dscp;
        };

        static const Name table[] = TC_MSFC_DSCP_NAMES;
        std::map<std::string, uint8_t> m;
        for (const auto& n : table)
        {
            std::string upper = n.name;
            std::transform(upper.begin(), upper.end(), upper.begin(), [](unsigned char c) {
                return static_cast<char>(std::toupper(c));
            });
            m[upper] = n.dscp;
        }
        return m;
    }();
    return names;
}

/// The default DSCP map of pkt_sched_msfc.h.
constexpr uint8_t DEFAULT_DSCP_MAP[TC_MSFC_DSCP_MAP_LEN] = TC_MSFC_DEFAULT_DSCP_MAP;

/// The named DSCP maps of pkt_sched_msfc.h (the default first).
struct NamedDscpMap
{
    const char* name;                      //!< lower case
    uint32_t prios;                        //!< the number of classes it is meant for
    uint8_t classes[TC_MSFC_DSCP_MAP_LEN]; //!< DSCP -> class
};

constexpr NamedDscpMap NAMED_DSCP_MAPS[] = TC_MSFC_DSCP_MAPS;

/// The named map `name` (any case), or nullptr.
const NamedDscpMap*
FindNamedDscpMap(const std::string& name)
{
    std::string lower = name;
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) {
        return static_cast<char>(std::tolower(c));
    });
    for (const auto& m : NAMED_DSCP_MAPS)
    {
        if (lower == m.name)
        {
            return &m;
        }
    }
    return nullptr;
}

bool
ParseUnsigned(const std::string& text, uint64_t max, uint64_t& out)
{
    if (text.empty() || text.size() > 10)
    {
        return false;
    }
    uint64_t v = 0;
    for (char ch : text)
    {
        if (!std::isdigit(static_cast<unsigned char>(ch)))
        {
            return false;
        }
        v = v * 10 + static_cast<uint64_t>(ch - '0');
    }
    if (v > max)
    {
        return false;
    }
    out = v;
    return true;
}

std::string
Trim(const std::string& s)
{
    auto b = s.find_first_not_of(" \t");
    if (b == std::string::npos)
    {
        return "";
    }
    auto e = s.find_last_not_of(" \t");
    return s.substr(b, e - b + 1);
}

/// `text` in lower case.
std::string
Lower(std::string text)
{
    std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) {
        return static_cast<char>(std::tolower(c));
    });
    return text;
}

/**
 * A DscpMap entry's value in tc's words: "le", a class 0..15, or a class with "+nqb" (any
 * case, no blank inside).
 * @param text the value
 * @param entry set to the map entry (a class, TC_MSFC_DSCP_NQB + class or TC_MSFC_DSCP_LE)
 * @return true when the text is one of them
 */
bool
ParseEntry(const std::string& text, uint32_t& entry)
{
    const std::string lower = Lower(Trim(text));
    if (lower == "le")
    {
        entry = TC_MSFC_DSCP_LE;
        return true;
    }
    const auto plus = lower.find('+');
    uint64_t cls = 0;
    if (plus == std::string::npos)
    {
        if (!ParseUnsigned(lower, TC_MSFC_DSCP_CLASS_MASK, cls))
        {
            return false;
        }
        entry = static_cast<uint32_t>(cls);
        return true;
    }
    if (lower.substr(plus + 1) != "nqb" ||
        !ParseUnsigned(lower.substr(0, plus), TC_MSFC_DSCP_CLASS_MASK, cls))
    {
        return false;
    }
    entry = TC_MSFC_DSCP_NQB + static_cast<uint32_t>(cls);
    return true;
}
} // namespace

bool
DscpClassifier::ParseDscpMap(const std::string& spec,
                             std::array<int32_t, 64>& map,
                             std::string& error)
{
    map.fill(-1);
    std::string normalized = spec;
    std::replace(normalized.begin(), normalized.end(), ';', ',');
    std::stringstream ss(normalized);
    std::string entry;
    bool first = true;
    while (std::getline(ss, entry, ','))
    {
        entry = Trim(entry);
        if (entry.empty())
        {
            continue;
        }
        auto eq = entry.find_first_of("=:");
        const NamedDscpMap* base = eq == std::string::npos ? FindNamedDscpMap(entry) : nullptr;
        if (base && first)
        {
            // a map name first: the base the entries after it change
            std::copy(std::begin(base->classes), std::end(base->classes), map.begin());
            first = false;
            continue;
        }
        if (base)
        {
            error = "DscpMap: the map name '" + entry +
                    "' must come first, before the DSCP=CLASS entries ('" + entry + ", EF=2')";
            return false;
        }
        if (eq == std::string::npos)
        {
            error = "DscpMap entry '" + entry +
                    "' is not of the form DSCP=CLASS (e.g. EF=2 or 46=2) nor a map name "
                    "(" TC_MSFC_DSCP_MAP_NAMES ", first)";
            return false;
        }
        first = false;
        std::string key = Trim(entry.substr(0, eq));
        std::string val = Trim(entry.substr(eq + 1));
        std::transform(key.begin(), key.end(), key.begin(), [](unsigned char c) {
            return static_cast<char>(std::toupper(c));
        });
        uint64_t dscp = 0;
        auto named = DscpNames().find(key);
        if (named != DscpNames().end())
        {
            dscp = named->second;
        }
        else if (!ParseUnsigned(key, 63, dscp))
        {
            error = "DscpMap entry '" + entry + "': '" + key +
                    "' is neither a DSCP number 0..63 nor a code point name "
                    "(CS0-CS7, AF11-AF43, EF, VA, NQB, LE, BE)";
            return false;
        }
        uint32_t value = 0;
        if (!ParseEntry(val, value))
        {
            error = "DscpMap entry '" + entry + "': class '" + val + "': " TC_MSFC_DSCP_MAP_MSG +
                    " (write a class, a class with +nqb or le: EF=2, NQB=1+nqb, LE=le)";
            return false;
        }
        map[dscp] = static_cast<int32_t>(value);
    }
    return true;
}

uint8_t
DscpClassifier::DscpForDefaultClass(uint32_t cls)
{
    NS_ABORT_MSG_IF(cls > 7, "DSCP class selectors express classes 0..7 only");
    // the first class selector CS0..CS7 the default map puts in cls: CS1 for 0, CS0 for 1,
    // CS<cls> above
    for (uint8_t dscp = 0; dscp < 64; dscp += 8)
    {
        if (DEFAULT_DSCP_MAP[dscp] == cls)
        {
            return dscp;
        }
    }
    NS_ABORT_MSG("the default DSCP map puts no class selector in class " << cls);
    return 0;
}

uint8_t
DscpClassifier::DefaultEntryOfDscp(uint8_t dscp)
{
    return DEFAULT_DSCP_MAP[dscp & 0x3f];
}

uint32_t
DscpClassifier::DefaultClassOfDscp(uint8_t dscp)
{
    const uint8_t entry = DefaultEntryOfDscp(dscp);
    return entry == ENTRY_LE ? 0 : entry & TC_MSFC_DSCP_CLASS_MASK;
}

bool
DscpClassifier::ValidEntry(uint32_t entry)
{
    return entry == ENTRY_LE || (entry & ~uint32_t{ENTRY_NQB}) <= TC_MSFC_DSCP_CLASS_MASK;
}

std::string
DscpClassifier::FormatEntry(uint32_t entry)
{
    if (entry == ENTRY_LE)
    {
        return "le";
    }
    const std::string cls = std::to_string(entry & TC_MSFC_DSCP_CLASS_MASK);
    return entry & ENTRY_NQB ? cls + "+nqb" : cls;
}

std::string
DscpClassifier::Configure(uint32_t nClasses, const std::string& dscpMapSpec, bool useSocketPriority)
{
    m_nClasses = std::max<uint32_t>(1, nClasses);
    m_useSocketPriority = useSocketPriority;
    std::array<int32_t, 64> overrides;
    std::string error;
    if (!ParseDscpMap(dscpMapSpec, overrides, error))
    {
        overrides.fill(-1);
    }
    for (uint32_t dscp = 0; dscp < 64; ++dscp)
    {
        const uint32_t entry = overrides[dscp] >= 0
                                   ? static_cast<uint32_t>(overrides[dscp])
                                   : DefaultEntryOfDscp(static_cast<uint8_t>(dscp));
        // the clamp applies to the class bits only: the NQB flag stays, the lane has none
        if (entry == ENTRY_LE)
        {
            m_entry[dscp] = ENTRY_LE;
        }
        else
        {
            const uint32_t cls =
                std::min<uint32_t>(entry & TC_MSFC_DSCP_CLASS_MASK, m_nClasses - 1);
            m_entry[dscp] = static_cast<uint8_t>((entry & ENTRY_NQB) | cls);
        }
    }
    return error;
}

uint8_t
DscpClassifier::EntryOfDscp(uint8_t dscp) const
{
    return m_entry[dscp & 0x3f];
}

uint32_t
DscpClassifier::ClassOfDscp(uint8_t dscp) const
{
    const uint8_t entry = EntryOfDscp(dscp);
    return entry == ENTRY_LE ? 0 : entry & TC_MSFC_DSCP_CLASS_MASK;
}

uint32_t
DscpClassifier::Classify(Ptr<const QueueDiscItem> item) const
{
    Origin origin;
    uint8_t dscp;
    return Classify(item, origin, dscp);
}

uint32_t
DscpClassifier::Classify(Ptr<const QueueDiscItem> item, Origin& origin, uint8_t& dscp) const
{
    return ClassifyTreatment(item, origin, dscp).cls;
}

DscpClassifier::Treatment
DscpClassifier::ClassifyTreatment(Ptr<const QueueDiscItem> item,
                                  Origin& origin,
                                  uint8_t& dscp) const
{
    Treatment t;
    if (m_useSocketPriority)
    {
        SocketPriorityTag tag;
        if (item->GetPacket()->PeekPacketTag(tag))
        {
            // an explicit class addresses the classes only
            origin = Origin::SOCKET_PRIORITY;
            dscp = 0;
            t.cls = std::min<uint32_t>(tag.GetPriority(), m_nClasses - 1);
            return t;
        }
    }
    uint8_t ds = 0;
    if (!item->GetUint8Value(QueueItem::IP_DSFIELD, ds))
    {
        origin = Origin::NON_IP; // the entry of DSCP 0
        dscp = 0;
    }
    else
    {
        origin = Origin::DSCP;
        dscp = ds >> 2;
    }
    const uint8_t entry = m_entry[dscp];
    t.lane = entry == ENTRY_LE;
    t.nqb = !t.lane && (entry & ENTRY_NQB);
    t.cls = t.lane ? 0 : entry & TC_MSFC_DSCP_CLASS_MASK;
    return t;
}

} // namespace ns3
