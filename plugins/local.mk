# plugins/: one pmc-NAME.so per backend, installed in $(pkglibdir).
plugin_ldflags = -module -avoid-version -shared $(AM_LDFLAGS)
include plugins/perf_event/local.mk
include plugins/cputimer/local.mk
if HOST_X86
include plugins/kvm_vpmu/local.mk
include plugins/perfctr_xen/local.mk
endif
