/*
 * msfc-trace-replay TRACE: replays a cross-check trace through the ns-3
 * MsfcQueueDisc and prints one line per dequeue (docs/algorithm.md).
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "msfc-trace-replay.h"

#include <iostream>

int
main(int argc, char** argv)
{
    if (argc != 2)
    {
        std::cerr << "usage: msfc-trace-replay FILE.trace\n";
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
