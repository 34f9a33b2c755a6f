'use strict';
// Which documents the server sees. Pure: documents are plain {uri, scheme, languageId, fsPath,
// getText()} objects, which is the part of vscode.TextDocument used here.
//
// A static DocumentSelector can say "shell scripts under scripts/training/" but not "any file
// that contains a relax.entrypoints.train invocation", so the client is given the broad
// selector below and AttachTracker decides per document, from its path and text.

const SHELL_LANGUAGE = 'shellscript';

// Schemes the server can analyse: files on disk, and unsaved buffers (no sourced files then).
const SCHEMES = ['file', 'untitled'];

const DOCUMENT_SELECTOR = SCHEMES.map((scheme) => ({ scheme, language: SHELL_LANGUAGE }));

function slashes(p) {
  return String(p || '').replace(/\\/g, '/');
}

function isShellPath(p) {
  return /\.(sh|bash)$/i.test(slashes(p));
}

// A shell script somewhere below a `scripts/training/` folder (Relax's layout).
function isTrainingScriptPath(p) {
  const s = slashes(p);
  return isShellPath(s) && /(^|\/)scripts\/training\/(.+\/)?[^/]+$/.test(s);
}

// `relax.entrypoints.train` as a module on a line that is not a comment: `python3 -m
// relax.entrypoints.train`, `torchrun ... -m relax.entrypoints.train`, or the file
// `relax/entrypoints/train.py`. Longer module names (relax.entrypoints.train_sft) do not count.
const INVOCATION = /(^|[\s"'=/(])(relax\.entrypoints\.train|relax\/entrypoints\/train\.py)(?![\w.])/;

function containsTrainInvocation(text) {
  if (typeof text !== 'string' || !text.includes('relax')) return false;
  for (const line of text.split(/\r?\n/)) {
    const t = line.trimStart();
    if (t.startsWith('#')) continue;
    // Drop a trailing comment (` # ...`) so a mention after the command does not count.
    const code = t.replace(/\s#.*$/, '');
    if (INVOCATION.test(code)) return true;
  }
  return false;
}

// doc: {scheme, languageId, fsPath, getText()}.
function shouldAttach(doc) {
  if (!doc || !SCHEMES.includes(doc.scheme)) return false;
  const shell = doc.languageId === SHELL_LANGUAGE || isShellPath(doc.fsPath);
  if (!shell) return false;
  if (doc.scheme === 'file' && isTrainingScriptPath(doc.fsPath)) return true;
  return containsTrainInvocation(typeof doc.getText === 'function' ? doc.getText() : doc.text);
}

// Remembers which documents were opened on the server, so that changes, closes and requests
// for the others are not sent. A document that gains an invocation while being edited is opened
// then; one that loses it stays attached until it is closed (its diagnostics stay truthful).
class AttachTracker {
  constructor(predicate = shouldAttach) {
    this.predicate = predicate;
    this.open = new Set();
  }

  key(doc) {
    return String(doc.uri);
  }

  has(doc) {
    return this.open.has(this.key(doc));
  }

  // 'open' (forward the didOpen) or 'skip'.
  onOpen(doc) {
    if (this.has(doc)) return 'open';
    if (!this.predicate(doc)) return 'skip';
    this.open.add(this.key(doc));
    return 'open';
  }

  // 'forward' (send the change), 'open' (send a didOpen with the full text instead) or 'skip'.
  onChange(doc) {
    if (this.has(doc)) return 'forward';
    if (!this.predicate(doc)) return 'skip';
    this.open.add(this.key(doc));
    return 'open';
  }

  // 'forward' or 'skip'.
  onClose(doc) {
    return this.open.delete(this.key(doc)) ? 'forward' : 'skip';
  }

  clear() {
    this.open.clear();
  }
}

module.exports = {
  SHELL_LANGUAGE,
  DOCUMENT_SELECTOR,
  isShellPath,
  isTrainingScriptPath,
  containsTrainInvocation,
  shouldAttach,
  AttachTracker,
};
