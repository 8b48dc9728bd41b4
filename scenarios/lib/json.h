// JSON writing for the scenario programs' --describe document and meta.json.
#ifndef MSFC_SCENARIOS_LIB_JSON_H
#define MSFC_SCENARIOS_LIB_JSON_H

#include <string>

namespace msfc
{
namespace scenario
{
namespace json
{

/// A JSON string literal of `s`, with quotes and escapes.
std::string Quote(const std::string& s);

/// A JSON number; shortest representation that reads back exactly (NaN/inf -> null).
std::string Number(double v);

} // namespace json
} // namespace scenario
} // namespace msfc

#endif
