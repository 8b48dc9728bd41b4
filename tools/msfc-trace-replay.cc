/*
 * msfc-trace-replay TRACE: replays a cross-check trace through the ns-3
 * MsfcQueueDisc and prints one line per decision (docs/algorithm.md).
 *
 * msfc-trace-replay --stream: reads traces from standard input, each ended by
 * a line ".", and answers each with its decisions followed by "."; a trace
 * that cannot be replayed is answered by one line "! <error>" and ".".
 * The differential tests (docs/differential.md) drive it this way.
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "msfc-trace-replay.h"

#include <iostream>
#include <sstream>

namespace
{

int
Stream()
{
    std::string line;
    std::string trace;
    uint32_t n = 0;
    while (std::getline(std::cin, line))
    {
        if (line != ".")
        {
            trace += line + "\n";
            continue;
        }
        std::istringstream in(trace);
        std::vector<std::string> out;
        std::string error;
        if (ns3::ReplayMsfcTrace(in, "trace " + std::to_string(++n), out, error))
        {
            for (const auto& l : out)
            {
                std::cout << l << "\n";
            }
        }
        else
        {
            std::cout << "! " << error << "\n";
        }
        std::cout << ".\n" << std::flush;
        trace.clear();
    }
    return 0;
}

} // namespace

int
main(int argc, char** argv)
{
    if (argc == 2 && std::string(argv[1]) == "--stream")
    {
        return Stream();
    }
    if (argc != 2)
    {
        std::cerr << "usage: msfc-trace-replay FILE.trace | msfc-trace-replay --stream\n";
        return 2;
    }
    std::vector<std::string> out;
    std::string error;
    if (!ns3::ReplayMsfcTrace(argv[1], out, error))
    {
        std::cerr << "msfc-trace-replay: " << error << "\n";
        return 2;
    }
    for (const auto& l : out)
    {
        std::cout << l << "\n";
    }
    return 0;
}
