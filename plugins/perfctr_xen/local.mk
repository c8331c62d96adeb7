# plugins/perfctr_xen: (to be filled by its owner)
