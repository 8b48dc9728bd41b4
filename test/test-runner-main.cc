// Runs every ns-3 TestSuite linked into this program (see `--help`).
#include "ns3/test.h"

int
main(int argc, char** argv)
{
    return ns3::TestRunner::Run(argc, argv);
}
