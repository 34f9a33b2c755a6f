'use strict';
// Arguments and results of the server's workspace/executeCommand commands (lsp/commands.h):
//   perfDoctor.report        [document URI]          -> {markdown}
//   perfDoctor.traceSummary  [trace file or folder]  -> {markdown, uri?}
//   perfDoctor.linkTrace     [script URI, trace or ""] -> {trace, measures}: its measures become
//                            evidence on the script's findings ("" unlinks)
//   perfDoctor.compareTraces [before, after]        -> {markdown}
//   perfDoctor.memoryBudget  [document URI]          -> {markdown}: the memory budget's breakdown
// The memory-budget code lens names perfDoctor.showMemoryBudget, a client command (the
// extension's): it asks perfDoctor.memoryBudget and previews the breakdown.
// linkTrace answers `mismatch` (a sentence) when the trace is another job's: it is linked but
// backs no finding, and the server says so with window/showMessage.
// `uri` is present when the server also wrote the summary beside the traces, which it does
// only for clients that support window/showDocument (VS Code does).
// Pure: URIs are plain {scheme, fsPath, toString()} objects here.

const { expandPath } = require('./config');

const REPORT = 'perfDoctor.report';
const TRACE_SUMMARY = 'perfDoctor.traceSummary';
const LINK_TRACE = 'perfDoctor.linkTrace';
const COMPARE_TRACES = 'perfDoctor.compareTraces';
const MEMORY_BUDGET = 'perfDoctor.memoryBudget';

// Extension command ids. The server's own ids are registered by vscode-languageclient from
// executeCommandProvider, so these must differ from them.
const OPEN_TRACE_SUMMARY = 'perfDoctor.openTraceSummary';
const SHOW_REPORT = 'perfDoctor.showReport';
const RESTART = 'perfDoctor.restartServer';
const LINK_TRACE_FOLDER = 'perfDoctor.linkTraceFolder';
const UNLINK_TRACE = 'perfDoctor.unlinkTrace';
const COMPARE_TRACE_FOLDERS = 'perfDoctor.compareTraceFolders';
// Also the command of the server's memory-budget code lens (its argument: the script's URI).
const SHOW_MEMORY_BUDGET = 'perfDoctor.showMemoryBudget';

class CommandInputError extends Error {}

// The trace argument from what the user picked: a Uri from the open dialog, a typed path, or
// a Uri passed by another extension / the explorer context menu. Returns a filesystem path.
function traceArgument(input, ctx) {
  if (input && typeof input === 'object') {
    if (input.scheme !== 'file' || !input.fsPath)
      throw new CommandInputError(`perf-doctor reads traces from disk; ${String(input)} is not a file`);
    return input.fsPath;
  }
  if (typeof input !== 'string') throw new CommandInputError('no trace file or folder was given');
  let s = input.trim();
  // Pasted paths often come quoted.
  if (s.length >= 2 && (s[0] === '"' || s[0] === "'") && s[s.length - 1] === s[0]) s = s.slice(1, -1);
  if (!s) throw new CommandInputError('no trace file or folder was given');
  if (s.startsWith('file://')) return s; // the server accepts file URIs as they are
  return expandPath(s, ctx);
}

// The report argument for a document ({uri, scheme, fsPath}). attached: the server has it open,
// so its URI names the editor's text (unsaved edits included); otherwise the server reads the
// file from disk, which needs a file.
function reportArgument(doc, attached) {
  if (!doc) throw new CommandInputError('open a training launch script first');
  if (attached) return String(doc.uri);
  if (doc.scheme === 'file' && doc.fsPath) return doc.fsPath;
  throw new CommandInputError('save the script first: perf-doctor reports on files');
}

// The memory-budget argument: the lens gives the script's URI (a string); the command palette
// and the editor menu give nothing or a Uri, and the active script is used. The server knows
// the document only when it is attached (open on the server).
function memoryBudgetArgument(arg, active, has) {
  let doc = active;
  if (typeof arg === 'string' && arg) return arg;
  if (arg && typeof arg === 'object' && arg.scheme) doc = { uri: arg.toString(), scheme: arg.scheme, fsPath: arg.fsPath };
  if (!doc) throw new CommandInputError('open a training launch script first');
  if (!has(doc)) throw new CommandInputError('open a training launch script first (this file is not one)');
  return String(doc.uri);
}

function executeParams(command, ...args) {
  return { command, arguments: args };
}

// Checks the shape of perfDoctor.linkTrace's result: {trace: string | null, measures}.
function linkResult(result) {
  if (!result || typeof result !== 'object' || !('trace' in result))
    throw new Error(`${LINK_TRACE}: the server answered without a trace`);
  const out = { trace: result.trace, measures: result.measures || null };
  if (typeof result.mismatch === 'string' && result.mismatch) out.mismatch = result.mismatch;
  return out;
}

// Checks the shape of a command's result: {markdown: string, uri?: string}.
function summaryResult(result, command) {
  if (!result || typeof result !== 'object' || typeof result.markdown !== 'string')
    throw new Error(`${command}: the server answered without markdown`);
  const out = { markdown: result.markdown };
  if (typeof result.uri === 'string' && result.uri) out.uri = result.uri;
  return out;
}

// A JSON-RPC error (ResponseError) as one line for an error message.
function errorText(err) {
  if (!err) return 'unknown error';
  const msg = err.message || String(err);
  return msg.replace(/^Request workspace\/executeCommand failed with message: /, '');
}

module.exports = {
  REPORT,
  TRACE_SUMMARY,
  LINK_TRACE,
  COMPARE_TRACES,
  MEMORY_BUDGET,
  SHOW_MEMORY_BUDGET,
  OPEN_TRACE_SUMMARY,
  LINK_TRACE_FOLDER,
  UNLINK_TRACE,
  COMPARE_TRACE_FOLDERS,
  SHOW_REPORT,
  RESTART,
  CommandInputError,
  traceArgument,
  reportArgument,
  memoryBudgetArgument,
  executeParams,
  summaryResult,
  linkResult,
  errorText,
};
