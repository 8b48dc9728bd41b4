// Output files of a scenario run, written under temporary names and renamed at
// the end so that a crashed run leaves no half-written result.
#ifndef MSFC_SCENARIOS_LIB_RUN_OUTPUT_H
#define MSFC_SCENARIOS_LIB_RUN_OUTPUT_H

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace msfc
{
namespace scenario
{

class RunOutput
{
  public:
    /// Creates DIR if missing and checks that it is writable (ConfigError if not).
    explicit RunOutput(const std::string& dir);
    /// Removes the temporary files of an unfinished run.
    ~RunOutput();

    RunOutput(const RunOutput&) = delete;
    RunOutput& operator=(const RunOutput&) = delete;

    /// Opens DIR/.NAME.partial for writing; Commit() renames it to DIR/NAME.
    std::ofstream& Open(const std::string& name);

    /// Closes every file and renames them into place, in the order opened.
    void Commit();

    const std::filesystem::path& Dir() const
    {
        return m_dir;
    }

  private:
    std::filesystem::path m_dir;
    std::vector<std::pair<std::string, std::unique_ptr<std::ofstream>>> m_files;
};

} // namespace scenario
} // namespace msfc

#endif
