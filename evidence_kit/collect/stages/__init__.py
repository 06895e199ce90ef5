"""The stages of one arm, in the order :func:`evidence_kit.collect.arm.run_arm` runs them.

- :mod:`.context`: what every stage shares: the arm's setup, endpoints, files, journal and result;
- :mod:`.engine`: launch the engine, wait until it serves, capture its identity; stop it, once;
- :mod:`.preamble`: calibration, the journal header, the engine-kind check, the gates, the warmup;
- :mod:`.timed_runs`: each timed run sent, reconciled with the engine's counters, committed;
- :mod:`.watch`: the engine's process start times and Prometheus counters, watched run by run;
- :mod:`.closing`: the checks after the last run, and those only a restored arm makes.
"""
