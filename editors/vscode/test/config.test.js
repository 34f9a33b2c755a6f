'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('path');

const { serverSettings, serverCommand, needsRestart, expandPath } = require('../lib/config');
const pkg = require('../package.json');

const ctx = { home: '/home/u', workspaceFolder: '/ws/relax' };

test('defaults send nothing, so the server keeps its own defaults', () => {
  // What VS Code returns for untouched settings: the package.json defaults.
  const props = pkg.contributes.configuration.properties;
  const raw = {};
  for (const [k, v] of Object.entries(props)) raw[k.replace(/^perfDoctor\./, '')] = v.default;
  const { settings, problems } = serverSettings(raw, ctx);
  // lang "en" is the server's default too, and is sent as is.
  assert.deepEqual(settings, { lang: 'en', syntaxDiagnostics: true });
  assert.deepEqual(problems, []);
  assert.deepEqual(serverSettings(undefined, ctx), { settings: {}, problems: [] });
});

test('every setting maps to the key lsp/config.c reads', () => {
  const { settings, problems } = serverSettings(
    {
      gpu: ' H100-80G ',
      lang: 'ZH',
      modelConfigDir: '${workspaceFolder}/scripts/models',
      extraRules: '~/rules/extra.json',
      rules: { 'R-P10': 'Info', 'R-C01': 'error', 'R-P24': false },
      disabledRules: ['R-P16', 'R-P16', 'R-P03'],
      syntaxDiagnostics: false,
      path: '/opt/bin/perf-doctor',
    },
    ctx,
  );
  assert.deepEqual(problems, []);
  assert.deepEqual(settings, {
    gpu: 'H100-80G',
    lang: 'zh',
    modelConfigDir: '/ws/relax/scripts/models',
    extraRules: '/home/u/rules/extra.json',
    rules: { 'R-P10': 'info', 'R-C01': 'error', 'R-P24': 'off' },
    disabledRules: ['R-P16', 'R-P03'],
    syntaxDiagnostics: false,
  });
  assert.equal('path' in settings, false, 'the executable path is the client\'s business');
});

test('relative folders are taken from the workspace, not the server\'s cwd', () => {
  const { settings } = serverSettings({ modelConfigDir: 'scripts/models', extraRules: './r.json' }, ctx);
  assert.equal(settings.modelConfigDir, '/ws/relax/scripts/models');
  assert.equal(settings.extraRules, '/ws/relax/r.json');
  const src = serverSettings({ relaxSrc: '~/code/Relax' }, ctx).settings;
  assert.equal(src.relaxSrc, path.join(ctx.home, 'code/Relax'));
  assert.equal(serverSettings({ relaxSrc: '../Relax' }, ctx).settings.relaxSrc, '/ws/Relax');
  const noWs = serverSettings({ modelConfigDir: 'scripts/models' }, { home: '/h' });
  assert.equal(noWs.settings.modelConfigDir, 'scripts/models');
});

test('values the server would reject are reported and left out', () => {
  const { settings, problems } = serverSettings(
    {
      gpu: 42,
      lang: 'fr',
      rules: { 'R-P10': 'loud', '': 'off', 'R-P01': 'warning' },
      disabledRules: 'R-P16',
      syntaxDiagnostics: 'yes',
      modelConfigDir: '   ',
    },
    ctx,
  );
  assert.deepEqual(settings, { rules: { 'R-P01': 'warning' } });
  assert.equal(problems.length, 6, problems.join('\n'));
  assert.match(problems.join('\n'), /perfDoctor\.lang must be "en" or "zh", not "fr"/);
  assert.match(problems.join('\n'), /perfDoctor\.rules\.R-P10: expected one of off, critical, error, warn, warning, info/);
  assert.deepEqual(serverSettings({ rules: ['R-P10'] }, ctx).problems, ['perfDoctor.rules must be an object of rule id -> severity']);
});

test('the severity enum offered in package.json is what the mapping accepts', () => {
  const offered = pkg.contributes.configuration.properties['perfDoctor.rules'].additionalProperties.enum;
  for (const sev of offered) {
    const { settings, problems } = serverSettings({ rules: { 'R-P10': sev } }, ctx);
    assert.deepEqual(problems, [], sev);
    assert.equal(settings.rules['R-P10'], sev);
  }
});

test('server command: PATH lookup by default, paths resolved against the workspace', () => {
  assert.deepEqual(serverCommand({}, ctx), { command: 'perf-doctor', args: ['lsp'] });
  assert.deepEqual(serverCommand({ path: '' }, ctx), { command: 'perf-doctor', args: ['lsp'] });
  assert.deepEqual(serverCommand({ path: 'pd-dev' }, ctx), { command: 'pd-dev', args: ['lsp'] });
  assert.equal(serverCommand({ path: 'build/perf-doctor' }, ctx).command, path.join('/ws/relax', 'build/perf-doctor'));
  assert.equal(serverCommand({ path: '~/bin/perf-doctor' }, ctx).command, '/home/u/bin/perf-doctor');
  assert.equal(serverCommand({ path: '${workspaceFolder}/build/perf-doctor' }, ctx).command, '/ws/relax/build/perf-doctor');
});

test('only a different executable needs a restart', () => {
  const a = serverCommand({ path: 'perf-doctor' }, ctx);
  assert.equal(needsRestart(a, serverCommand({}, ctx)), false);
  assert.equal(needsRestart(a, serverCommand({ path: '/x/perf-doctor' }, ctx)), true);
});

test('expandPath', () => {
  assert.equal(expandPath('~', ctx), '/home/u');
  assert.equal(expandPath('${userHome}/x', ctx), '/home/u/x');
  assert.equal(expandPath('', ctx), undefined);
  assert.equal(expandPath(null, ctx), undefined);
  // Without a workspace the variable is left for the user to see.
  assert.equal(expandPath('${workspaceFolder}/x', { home: '/h' }), '${workspaceFolder}/x');
});
