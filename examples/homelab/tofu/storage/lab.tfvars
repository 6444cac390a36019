disks = 1
