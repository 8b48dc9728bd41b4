#include "run-output.h"

#include "options.h"

#include <stdexcept>
#include <system_error>

namespace msfc
{
namespace scenario
{

RunOutput::RunOutput(const std::string& dir)
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

RunOutput::~RunOutput()
{
    std::error_code ec;
    for (auto& [name, f] : m_files)
    {
        f->close();
        std::filesystem::remove(m_dir / ("." + name + ".partial"), ec);
    }
}

std::ofstream&
RunOutput::Open(const std::string& name)
{
    auto tmp = m_dir / ("." + name + ".partial");
    m_files.emplace_back(name, std::make_unique<std::ofstream>(tmp));
    if (!*m_files.back().second)
    {
        throw std::runtime_error("cannot write " + tmp.string());
    }
    return *m_files.back().second;
}

void
RunOutput::Commit()
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

} // namespace scenario
} // namespace msfc
