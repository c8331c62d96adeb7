# plugins/kvm_vpmu: (to be filled by its owner)
