// The action's step: runs `sluiceway run` with the step's inputs.
'use strict';

require('./run').run({});
