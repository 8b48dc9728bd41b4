#include "json.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace msfc
{
namespace scenario
{
namespace json
{

std::string
Quote(const std::string& s)
{
    std::string out = "\"";
    for (unsigned char c : s)
    {
        switch (c)
        {
        case '"':
            out += "\\\"";
            break;
        case '\\':
            out += "\\\\";
            break;
        case '\n':
            out += "\\n";
            break;
        case '\r':
            out += "\\r";
            break;
        case '\t':
            out += "\\t";
            break;
        default:
            if (c < 0x20)
            {
                char buf[8];
                std::snprintf(buf, sizeof(buf), "\\u%04x", c);
                out += buf;
            }
            else
            {
                out += static_cast<char>(c);
            }
        }
    }
    return out + "\"";
}

std::string
Number(double v)
{
    if (!std::isfinite(v))
    {
        return "null";
    }
    if (v == std::floor(v) && std::fabs(v) < 1e15)
    {
        char buf[32];
        std::snprintf(buf, sizeof(buf), "%.1f", v);
        return buf;
    }
    char buf[32];
    for (int prec = 6; prec <= 17; ++prec)
    {
        std::snprintf(buf, sizeof(buf), "%.*g", prec, v);
        if (std::strtod(buf, nullptr) == v)
        {
            break;
        }
    }
    return buf;
}

} // namespace json
} // namespace scenario
} // namespace msfc
