"""The embedded engine simulator: a vLLM-like OpenAI-compatible server for the demo and the tests.

Start one for a test with ``running_simulator`` (a thread in this process) or
``simulator_process`` (``evidence-kit sim`` as a subprocess)::

    with running_simulator("original", time_scale=20) as url:
        httpx.post(url + "/v1/chat/completions", json={...})
"""

from .app import create_app
from .profile import SHIPPED_PROFILES, Profile, load_profile
from .server import Simulator, configure_profile, running_simulator, serve, simulator_command, simulator_process, start_simulator, startup_log
from .tokenizer import TOKENIZER

__all__ = [
    "SHIPPED_PROFILES",
    "Profile",
    "Simulator",
    "TOKENIZER",
    "configure_profile",
    "create_app",
    "load_profile",
    "running_simulator",
    "serve",
    "simulator_command",
    "simulator_process",
    "start_simulator",
    "startup_log",
]
