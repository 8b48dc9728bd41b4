/*
 * msfc-describe: prints, as JSON, the schedulers the project's programs
 * accept and every attribute of each (type, default, range, help), read
 * from the ns-3 TypeIds.  The Python CLI reads this instead of keeping its
 * own copy of parameter names, defaults and ranges.
 *
 *   msfc-describe                  all schedulers
 *   msfc-describe --type=ns3::X    the attributes of any TypeId
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "ns3/command-line.h"
#include "ns3/msfc-queue-disc.h"
#include "ns3/scheduler-registry.h"
#include "ns3/type-id.h"

#include <iostream>
#include <sstream>
#include <string>

using namespace ns3;

namespace
{

std::string
Json(const std::string& s)
{
    std::ostringstream o;
    o << '"';
    for (unsigned char c : s)
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
            if (c < 0x20)
            {
                o << "\\u00" << "0123456789abcdef"[c >> 4] << "0123456789abcdef"[c & 15];
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

/// Attributes declared by tid itself (not by its parents).
void
PrintAttributes(std::ostream& os, TypeId tid)
{
    os << "[";
    for (std::size_t i = 0; i < tid.GetAttributeN(); ++i)
    {
        TypeId::AttributeInformation info = tid.GetAttribute(i);
        if (!(info.flags & TypeId::ATTR_SET) || info.supportLevel == TypeId::SupportLevel::OBSOLETE)
        {
            continue;
        }
        std::string range = MsfcQueueDisc::GetAttributeRange(info.name);
        if (tid.GetName() != "ns3::MsfcQueueDisc" || range.empty())
        {
            range = info.checker->GetUnderlyingTypeInformation();
        }
        os << (i ? ",\n    " : "\n    ") << "{\"name\": " << Json(info.name)
           << ", \"type\": " << Json(info.checker->GetValueTypeName())
           << ", \"default\": " << Json(info.initialValue->SerializeToString(info.checker))
           << ", \"range\": " << Json(range) << ", \"help\": " << Json(info.help) << "}";
    }
    os << "]";
}

} // namespace

int
main(int argc, char** argv)
{
    std::string type;
    CommandLine cmd(__FILE__);
    cmd.Usage("Print the schedulers and their attributes as JSON.");
    cmd.AddValue("type", "print the attributes of this TypeId instead", type);
    cmd.Parse(argc, argv);
    MsfcQueueDisc::GetTypeId(); // keep the module library linked

    if (!type.empty())
    {
        TypeId tid;
        if (!TypeId::LookupByNameFailSafe(type, &tid))
        {
            std::cerr << "msfc-describe: unknown TypeId '" << type << "'\n";
            return 2;
        }
        PrintAttributes(std::cout, tid);
        std::cout << "\n";
        return 0;
    }
    std::cout << "{\"schedulers\": [";
    bool first = true;
    for (const auto& s : SchedulerRegistry::All())
    {
        std::cout << (first ? "\n  " : ",\n  ") << "{\"name\": " << Json(s.name)
                  << ", \"type_id\": " << Json(s.typeId)
                  << ", \"description\": " << Json(s.description) << ", \"fixed\": {";
        for (size_t i = 0; i < s.attributes.size(); ++i)
        {
            std::cout << (i ? ", " : "") << Json(s.attributes[i].first) << ": "
                      << Json(s.attributes[i].second);
        }
        std::cout << "}, \"attributes\": ";
        PrintAttributes(std::cout, TypeId::LookupByName(s.typeId));
        std::cout << "}";
        first = false;
    }
    std::cout << "\n]}\n";
    return 0;
}
