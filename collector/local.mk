# collector
