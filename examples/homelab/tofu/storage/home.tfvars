disks = 4
