# tests/stress: stress and fault programs (see run-stress.sh)
