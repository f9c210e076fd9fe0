# Versions of the external components freshet builds and tests against (sourced by the scripts).
PYARROW_VERSION=26.0.1      # Arrow C++ 26.0.1, from the PyPI wheel
PYPAIMON_VERSION=2.1.0      # the Python reference reader/writer
PAIMON_JAVA_VERSION=1.4.2   # newest org.apache.paimon:paimon-bundle Maven Central serves here
