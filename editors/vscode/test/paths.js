'use strict';
// Where the tests find the repository, the built server and the real traces (HTA's test data,
// kept in tests/fixtures/traces/hta). Run from the
// repository (`cd editors/vscode && npm test`) they need no environment: the repository is two
// folders up and the server is build/perf-doctor, as the README builds it. ctest runs them on a
// copy in the build tree and says where things are (PD_SOURCE_DIR, PERF_DOCTOR_BIN,
// PD_HTA_DIR).
const fs = require('fs');
const path = require('path');

const REPO = process.env.PD_SOURCE_DIR || path.resolve(__dirname, '../../..');
const built = path.join(REPO, 'build', 'perf-doctor');
const BIN = process.env.PERF_DOCTOR_BIN || (fs.existsSync(built) ? built : undefined);
const HTA = process.env.PD_HTA_DIR || path.join(REPO, 'tests/fixtures/traces/hta');

module.exports = {
  REPO,
  BIN,
  HTA,
  skipNoServer: BIN ? false : `no server: build it (cmake --build build) or set PERF_DOCTOR_BIN`,
};
