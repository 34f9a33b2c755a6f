'use strict';
// Settings -> server. Pure: no `vscode` import, so `node --test` can run it.
//
// The server reads (analyzer/audit/settings.c, au_settings_load) an object that may be wrapped as
// {perfDoctor: {...}}:
//   gpu, lang ("en" | "zh"), modelConfigDir, extraRules, docsUrl, traceDir, relaxSrc   non-empty strings
//   rules          {ruleId: "off" | "critical" | "error" | "warn" | "warning" | "info"}
//   disabledRules  [ruleId]
//   syntaxDiagnostics  boolean
// It reports a wrong value with window/showMessage, so this mapping sends only values the
// server accepts and returns the rest as `problems` for the extension to show once.

const os = require('os');
const path = require('path');

// The words cfg_load's severity_of accepts (case-insensitive); package.json offers the first six.
const SEVERITIES = ['off', 'critical', 'error', 'warn', 'warning', 'info', 'none', 'disabled', 'information', 'hint'];
const LANGS = ['en', 'zh'];
const STRING_KEYS = ['gpu', 'modelConfigDir', 'extraRules', 'docsUrl', 'traceDir', 'relaxSrc'];
const PATH_KEYS = new Set(['modelConfigDir', 'extraRules', 'traceDir', 'relaxSrc']);

// `~`, `${userHome}` and `${workspaceFolder}` the way VS Code users write them in settings.
// ctx: {home, workspaceFolder} (workspaceFolder may be undefined).
function expandPath(p, ctx) {
  if (typeof p !== 'string') return undefined;
  let s = p.trim();
  if (!s) return undefined;
  const home = (ctx && ctx.home) || os.homedir();
  const ws = ctx && ctx.workspaceFolder;
  s = s.replace(/\$\{userHome\}/g, home);
  if (ws) s = s.replace(/\$\{workspaceFolder\}/g, ws);
  if (s === '~') s = home;
  else if (s.startsWith('~/')) s = path.join(home, s.slice(2));
  return s;
}

// A relative path setting is relative to the workspace folder (the server's own cwd is not
// something the user controls).
function absolutePath(p, ctx) {
  const s = expandPath(p, ctx);
  if (s === undefined) return undefined;
  if (path.isAbsolute(s) || !(ctx && ctx.workspaceFolder)) return s;
  return path.join(ctx.workspaceFolder, s);
}

// raw: the extension's settings ({gpu, lang, modelConfigDir, extraRules, rules, disabledRules,
// syntaxDiagnostics}; any key may be missing). Returns {settings, problems}.
function serverSettings(raw, ctx) {
  const r = raw || {};
  const settings = {};
  const problems = [];

  for (const key of STRING_KEYS) {
    const v = r[key];
    if (v === undefined || v === null || v === '') continue;
    if (typeof v !== 'string') {
      problems.push(`perfDoctor.${key} must be a string`);
      continue;
    }
    const s = PATH_KEYS.has(key) ? absolutePath(v, ctx) : v.trim();
    if (s) settings[key] = s;
  }

  if (r.lang !== undefined && r.lang !== null && r.lang !== '') {
    const l = typeof r.lang === 'string' ? r.lang.trim().toLowerCase() : '';
    if (LANGS.includes(l)) settings.lang = l;
    else problems.push(`perfDoctor.lang must be "en" or "zh", not ${JSON.stringify(r.lang)}`);
  }

  if (r.rules !== undefined && r.rules !== null) {
    if (typeof r.rules !== 'object' || Array.isArray(r.rules)) {
      problems.push('perfDoctor.rules must be an object of rule id -> severity');
    } else {
      const rules = {};
      for (const [id, sev] of Object.entries(r.rules)) {
        const rule = id.trim();
        const s = sev === false ? 'off' : typeof sev === 'string' ? sev.trim().toLowerCase() : '';
        if (!rule) problems.push('perfDoctor.rules: empty rule id');
        else if (!SEVERITIES.includes(s))
          problems.push(`perfDoctor.rules.${rule}: expected one of ${SEVERITIES.slice(0, 6).join(', ')}`);
        else rules[rule] = s;
      }
      if (Object.keys(rules).length) settings.rules = rules;
    }
  }

  if (r.disabledRules !== undefined && r.disabledRules !== null) {
    if (!Array.isArray(r.disabledRules)) {
      problems.push('perfDoctor.disabledRules must be an array of rule ids');
    } else {
      const ids = [];
      for (const id of r.disabledRules) {
        if (typeof id !== 'string' || !id.trim()) problems.push('perfDoctor.disabledRules: entries must be rule ids');
        else if (!ids.includes(id.trim())) ids.push(id.trim());
      }
      if (ids.length) settings.disabledRules = ids;
    }
  }

  if (r.syntaxDiagnostics !== undefined && r.syntaxDiagnostics !== null) {
    if (typeof r.syntaxDiagnostics === 'boolean') settings.syntaxDiagnostics = r.syntaxDiagnostics;
    else problems.push('perfDoctor.syntaxDiagnostics must be true or false');
  }

  return { settings, problems };
}

// The server process: `perfDoctor.path` (default: `perf-doctor` on PATH) with `lsp`. A bare
// name is left to PATH lookup; anything with a slash is a path (relative to the workspace).
function serverCommand(raw, ctx) {
  const r = raw || {};
  let command = 'perf-doctor';
  if (typeof r.path === 'string' && r.path.trim()) {
    const p = expandPath(r.path, ctx);
    command = p.includes('/') || p.includes('\\') ? absolutePath(p, ctx) : p;
  }
  return { command, args: ['lsp'] };
}

// True when a configuration change needs a new server process rather than new settings.
function needsRestart(before, after) {
  return before.command !== after.command || before.args.join('\0') !== after.args.join('\0');
}

module.exports = { SEVERITIES, LANGS, expandPath, serverSettings, serverCommand, needsRestart };
