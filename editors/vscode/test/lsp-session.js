'use strict';
// A minimal LSP client over the same JSON-RPC layer vscode-languageclient uses
// (vscode-languageserver-protocol/node), for tests against the real `perf-doctor lsp`.

const { spawn } = require('child_process');
const {
  createProtocolConnection,
  StreamMessageReader,
  StreamMessageWriter,
} = require('vscode-languageserver-protocol/node');

// The client capabilities vscode-languageclient 9 sends that the server looks at
// (lsp/server.c on_initialize), with showDocument switchable.
function vscodeCapabilities({ showDocument = true } = {}) {
  return {
    general: { positionEncodings: ['utf-16'] },
    workspace: { configuration: true, workspaceFolders: true, didChangeWatchedFiles: { dynamicRegistration: true } },
    textDocument: {
      synchronization: { dynamicRegistration: true, didSave: true },
      publishDiagnostics: { relatedInformation: true, versionSupport: false, codeDescriptionSupport: true },
      hover: { contentFormat: ['markdown', 'plaintext'] },
      codeAction: {
        codeActionLiteralSupport: { codeActionKind: { valueSet: ['', 'quickfix', 'refactor', 'refactor.rewrite', 'source', 'source.fixAll'] } },
        isPreferredSupport: true,
      },
    },
    window: { showDocument: { support: showDocument }, workDoneProgress: true },
  };
}

class Session {
  // cmd: {command, args}; opts: {configuration(section) -> value}
  constructor(cmd, opts = {}) {
    this.proc = spawn(cmd.command, cmd.args, { stdio: ['pipe', 'pipe', 'pipe'] });
    this.stderr = '';
    this.proc.stderr.on('data', (d) => (this.stderr += d));
    this.proc.stdin.on('error', () => undefined); // a server that died is reported by `exited`
    this.exited = new Promise((resolve) => this.proc.on('exit', (code, signal) => resolve({ code, signal })));
    this.spawnError = new Promise((resolve) => this.proc.on('error', resolve));
    // Nothing is written before the process exists: a failed spawn must not leave writes behind.
    this.spawned = new Promise((resolve, reject) => {
      this.proc.on('spawn', resolve);
      this.proc.on('error', reject);
    });
    this.conn = createProtocolConnection(new StreamMessageReader(this.proc.stdout), new StreamMessageWriter(this.proc.stdin));
    this.diagnostics = new Map(); // uri -> [{version, diagnostics}]
    this.waiters = [];
    this.messages = []; // window/showMessage + logMessage
    this.requests = []; // server -> client requests: {method, params}
    this.conn.onNotification('textDocument/publishDiagnostics', (p) => {
      if (!this.diagnostics.has(p.uri)) this.diagnostics.set(p.uri, []);
      this.diagnostics.get(p.uri).push(p);
      this.wake();
    });
    this.conn.onNotification('window/showMessage', (p) => {
      this.messages.push(p);
      this.wake();
    });
    this.conn.onNotification('window/logMessage', () => undefined);
    this.conn.onRequest((method, params) => {
      this.requests.push({ method, params });
      this.wake();
      if (method === 'workspace/configuration')
        return params.items.map((it) => (opts.configuration ? opts.configuration(it.section) : null));
      if (method === 'window/showDocument') return { success: true };
      return null;
    });
    this.conn.listen();
  }

  wake() {
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }

  // Resolves when pred() is truthy (checked after every notification or request).
  async until(pred, what, ms = 15000) {
    const deadline = Date.now() + ms;
    for (;;) {
      const v = pred();
      if (v) return v;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out after ${ms} ms waiting for ${what}; server stderr:\n${this.stderr}`);
      await new Promise((resolve) => {
        const t = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
  }

  // The first publishDiagnostics for uri carrying `version` (or any, when version is undefined)
  // that arrives after `after` earlier publishes.
  async publish(uri, version, after = 0) {
    return this.until(() => {
      const list = (this.diagnostics.get(uri) || []).slice(after);
      return list.find((p) => version === undefined || p.version === version);
    }, `publishDiagnostics for ${uri}${version === undefined ? '' : ` v${version}`}`);
  }

  published(uri) {
    return (this.diagnostics.get(uri) || []).length;
  }

  async initialize(params) {
    await this.spawned;
    const res = await this.conn.sendRequest('initialize', { processId: process.pid, ...params });
    await this.conn.sendNotification('initialized', {});
    return res;
  }

  // shutdown + exit; resolves to {code, signal} of the process ({code: 'timeout'} if it did
  // not exit within 5 s, then it is killed), with `error` when the shutdown request failed.
  async close() {
    let error;
    try {
      await this.conn.sendRequest('shutdown');
      await this.conn.sendNotification('exit');
    } catch (err) {
      error = err.message;
    }
    let timer;
    const late = new Promise((r) => (timer = setTimeout(() => r({ code: 'timeout' }), 5000)));
    const status = await Promise.race([this.exited, late]);
    clearTimeout(timer);
    this.conn.dispose();
    if (status.code === 'timeout') this.proc.kill();
    return error ? { ...status, error } : status;
  }

}

// Applies LSP TextEdits (UTF-16 positions, which is what JavaScript strings index) to text.
function applyEdits(text, edits) {
  const lineStarts = [0];
  for (let i = 0; i < text.length; i++) if (text[i] === '\n') lineStarts.push(i + 1);
  const offset = (p) => Math.min((lineStarts[p.line] ?? text.length) + p.character, text.length);
  const sorted = edits
    .map((e) => ({ start: offset(e.range.start), end: offset(e.range.end), newText: e.newText }))
    .sort((a, b) => b.start - a.start || b.end - a.end);
  let out = text;
  for (const e of sorted) out = out.slice(0, e.start) + e.newText + out.slice(e.end);
  return out;
}

module.exports = { Session, vscodeCapabilities, applyEdits };
