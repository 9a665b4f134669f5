"""The protocol, sandbox, thread, host, composer, output, workspace, registry and client layers
and the settings must run without Textual."""

import subprocess
import sys


def test_core_layers_do_not_import_textual() -> None:
    code = (
        "import sys, pkgutil, importlib\n"
        "import acp_tui.protocol, acp_tui.thread, acp_tui.host, acp_tui.client, acp_tui.config\n"
        "import acp_tui.composer, acp_tui.output, acp_tui.worktrees, acp_tui.registry\n"
        "import acp_tui.sandbox\n"
        "pkgs = (acp_tui.protocol, acp_tui.thread, acp_tui.host, acp_tui.client,\n"
        "        acp_tui.composer, acp_tui.output, acp_tui.worktrees, acp_tui.registry,\n"
        "        acp_tui.sandbox)\n"
        "for pkg in pkgs:\n"
        "    for mod in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + '.'):\n"
        "        importlib.import_module(mod.name)\n"
        "assert 'textual' not in sys.modules, sorted(m for m in sys.modules if 'textual' in m)\n"
        "print('ok')\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"


def test_version_does_not_import_textual() -> None:
    code = (
        "import sys\n"
        "from acp_tui.cli import main\n"
        "try:\n"
        "    main(['--version'])\n"
        "except SystemExit:\n"
        "    pass\n"
        "assert 'textual' not in sys.modules\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert "acp-tui" in result.stdout
