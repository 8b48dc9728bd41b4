// Output files of a scenario run, written under temporary names and renamed at
// the end so that a crashed run leaves no half-written result.
#ifndef MSFC_SCENARIOS_LIB_RUN_OUTPUT_H
#define MSFC_SCENARIOS_LIB_RUN_OUTPUT_H

#include "scenario-options.h"

#include <filesystem>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

namespace msfc
{
namespace scenario
{

class RunOutput
{
  public:
    /// Creates DIR if missing and checks that it is writable.
    explicit RunOutput(const std::string& dir)
        : m_dir(dir)
    {
        std::error_code ec;
        std::filesystem::create_directories(m_dir, ec);
        if (ec || !std::filesystem::is_directory(m_dir))
        {
            throw ConfigError("cannot create output directory '" + dir + "' (" + ec.message() +
                              "): check the option --out");
        }
        auto probe = m_dir / ".write-test";
        std::ofstream t(probe);
        if (!t)
        {
            throw ConfigError("output directory '" + dir + "' is not writable: check --out");
        }
        t.close();
        std::filesystem::remove(probe, ec);
    }

    /// Opens DIR/.NAME.partial for writing; Commit() renames it to DIR/NAME.
    std::ofstream& Open(const std::string& name)
    {
        auto tmp = m_dir / ("." + name + ".partial");
        m_files.emplace_back(name, std::make_unique<std::ofstream>(tmp));
        if (!*m_files.back().second)
        {
            throw std::runtime_error("cannot write " + tmp.string());
        }
        return *m_files.back().second;
    }

    /// Closes every file and renames them into place, in the order opened.
    void Commit()
    {
        for (auto& [name, f] : m_files)
        {
            f->close();
            if (f->fail())
            {
                throw std::runtime_error("error writing " + (m_dir / name).string());
            }
        }
        for (auto& [name, f] : m_files)
        {
            std::filesystem::rename(m_dir / ("." + name + ".partial"), m_dir / name);
        }
        m_files.clear();
    }

    /// Removes the temporary files of an unfinished run.
    ~RunOutput()
    {
        std::error_code ec;
        for (auto& [name, f] : m_files)
        {
            f->close();
            std::filesystem::remove(m_dir / ("." + name + ".partial"), ec);
        }
    }

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
