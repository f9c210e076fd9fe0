# Versions of the external components freshet builds and tests against (sourced by the scripts).
PYARROW_VERSION=26.0.1      # Arrow C++ 26.0.1, from the PyPI wheel
PYPAIMON_VERSION=2.1.0      # the Python reference reader/writer
PAIMON_JAVA_VERSION=1.4.2   # newest org.apache.paimon:paimon-bundle Maven Central serves here
# The paimon-bundle versions whose tables the interop suite writes and reads (docs/interop-tests.md,
# "Tables of every Java Paimon version"): every one from 0.9 on that Maven Central serves here.
# Not served (probed 2026-12-01): 1.1.0, 1.3.2, 1.4.0, 1.4.1, 2.0.0.
PAIMON_JAVA_FIXTURE_VERSIONS="0.9.0 1.0.0 1.0.1 1.1.1 1.2.0 1.3.0 1.3.1 1.4.2"
