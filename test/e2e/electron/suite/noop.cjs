// The development extension @vscode/test-electron needs; the tests are in index.cjs.
'use strict';
module.exports = { activate() {}, deactivate() {} };
