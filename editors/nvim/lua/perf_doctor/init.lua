-- perf-doctor for Neovim 0.7.2 and newer.
--
-- Attaches `perf-doctor lsp` to Relax training launch scripts (shell scripts under
-- scripts/training/, and any shell script that launches relax.entrypoints.train), and opens
-- the server's markdown (:PerfDoctorReport, :PerfDoctorTrace) in scratch buffers.
--
--   require('perf_doctor').setup({ cmd = { 'perf-doctor', 'lsp' }, settings = { gpu = 'H100-80G' } })
--
-- API differences handled here: vim.lsp.start exists from 0.8 (0.7 has start_client +
-- buf_attach_client), get_active_clients became get_clients in 0.10, and a client that
-- supports window/showDocument makes the server write trace summaries beside the traces, which
-- this plugin never asks for (it shows the markdown itself).
local M = {}

local NAME = 'perf-doctor'
local SECTION = 'perfDoctor'

local defaults = {
  cmd = { 'perf-doctor', 'lsp' },
  -- The server's settings (lsp/config.c): gpu, lang, modelConfigDir, extraRules, rules,
  -- disabledRules, syntaxDiagnostics.
  settings = {},
  filetypes = { 'sh', 'bash' },
  -- function(bufnr) -> boolean; default M.should_attach.
  attach = nil,
  -- Buffer-local keymaps on attached scripts (K hover, gd definition, gr references, <leader>rn
  -- rename, <leader>ca code actions, <leader>cl the code lens, <leader>pr report, <leader>pm
  -- memory budget); a key the buffer already maps is left alone. false: none (:help
  -- perf-doctor-keymaps).
  keymaps = true,
  -- Diagnostics: the most severe first (sign and virtual text), the rule id in front, cut at a
  -- word to fit the window. false: Neovim's own display.
  diagnostics = true,
  -- Passed through to the client.
  on_attach = nil,
  capabilities = nil,
  flags = nil,
}

local state = {
  config = nil, -- the merged setup() options
  clients = {}, -- root_dir -> client id (the 0.7 path; vim.lsp.start reuses clients itself)
  started = {}, -- client id -> true, for every client this plugin started
  scratch = {}, -- scratch buffer name -> bufnr
  start_failed = false, -- a start failure was reported since setup()
}

-- Client methods are called with `:` from 0.11 (the `.` form is deprecated there).
local function method(client, name, ...)
  if vim.fn.has('nvim-0.11') == 1 then
    return client[name](client, ...)
  end
  return client[name](...)
end

local function notify(msg, level)
  vim.notify('perf-doctor: ' .. msg, level or vim.log.levels.ERROR)
end

-- ---- which buffers -------------------------------------------------------------------------

local function is_shell_path(path)
  return path:match('%.sh$') ~= nil or path:match('%.bash$') ~= nil
end

function M.is_training_script_path(path)
  path = (path or ''):gsub('\\', '/')
  if not is_shell_path(path) then
    return false
  end
  return path:match('^scripts/training/.') ~= nil or path:match('/scripts/training/.') ~= nil
end

-- `pattern` in `code` as a whole token: after the start or one of  space " ' = / (  and not
-- followed by a word character or a dot (relax.entrypoints.train_sft is another module).
local function has_token(code, pattern)
  local init = 1
  while true do
    local s, e = code:find(pattern, init)
    if not s then
      return false
    end
    local before = s == 1 and ' ' or code:sub(s - 1, s - 1)
    local after = code:sub(e + 1, e + 1)
    if before:match('[%s"\'=/(]') and not after:match('[%w_.]') then
      return true
    end
    init = s + 1
  end
end

-- True when a line that is not a comment launches relax.entrypoints.train (as a module, or
-- as relax/entrypoints/train.py). lines: a list of strings.
function M.contains_train_invocation(lines)
  for _, line in ipairs(lines) do
    if line:find('relax', 1, true) then
      local code = line:gsub('^%s+', '')
      if code:sub(1, 1) ~= '#' then
        code = code:gsub('%s#.*$', '')
        if has_token(code, 'relax%.entrypoints%.train') or has_token(code, 'relax/entrypoints/train%.py') then
          return true
        end
      end
    end
  end
  return false
end

function M.should_attach(bufnr)
  if vim.bo[bufnr].buftype ~= '' then
    return false
  end
  if M.is_training_script_path(vim.api.nvim_buf_get_name(bufnr)) then
    return true
  end
  return M.contains_train_invocation(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false))
end

-- ---- settings ------------------------------------------------------------------------------

local STRING_KEYS = { 'gpu', 'lang', 'modelConfigDir', 'extraRules', 'traceDir' }
local PATH_KEYS = { modelConfigDir = true, extraRules = true, traceDir = true }

-- The settings as the server reads them. Empty values are dropped (the server rejects an
-- empty string), paths are expanded, and empty tables are sent as JSON objects, not arrays.
function M.server_settings(settings)
  local out = {}
  local problems = {}
  settings = settings or {}
  for _, k in ipairs(STRING_KEYS) do
    local v = settings[k]
    if type(v) == 'string' and v ~= '' then
      out[k] = PATH_KEYS[k] and vim.fn.fnamemodify(vim.fn.expand(v), ':p'):gsub('/$', '') or v
    elseif v ~= nil and v ~= '' then
      table.insert(problems, k .. ' must be a string')
    end
  end
  if type(settings.rules) == 'table' and next(settings.rules) ~= nil then
    out.rules = settings.rules
  elseif settings.rules ~= nil and type(settings.rules) ~= 'table' then
    table.insert(problems, 'rules must be a table of rule id = severity')
  end
  if type(settings.disabledRules) == 'table' and #settings.disabledRules > 0 then
    out.disabledRules = settings.disabledRules
  elseif settings.disabledRules ~= nil and type(settings.disabledRules) ~= 'table' then
    table.insert(problems, 'disabledRules must be a list of rule ids')
  end
  if type(settings.syntaxDiagnostics) == 'boolean' then
    out.syntaxDiagnostics = settings.syntaxDiagnostics
  elseif settings.syntaxDiagnostics ~= nil then
    table.insert(problems, 'syntaxDiagnostics must be true or false')
  end
  if next(out) == nil then
    out = vim.empty_dict()
  end
  return out, problems
end

-- ---- clients -------------------------------------------------------------------------------

-- Running perf-doctor clients, including those still initialising (0.7's
-- get_active_clients lists a client only once it has initialised).
local function get_clients()
  local get = vim.lsp.get_clients or vim.lsp.get_active_clients
  local out, seen = {}, {}
  for _, c in pairs(get()) do
    if c.name == NAME then
      table.insert(out, c)
      seen[c.id] = true
    end
  end
  for id in pairs(state.started) do
    local c = not seen[id] and vim.lsp.get_client_by_id(id)
    if c then
      table.insert(out, c)
    elseif not seen[id] then
      state.started[id] = nil
    end
  end
  return out
end

-- The repository root: the folder that holds scripts/training/, else the nearest .git, else
-- the file's folder.
function M.root_dir(path)
  path = vim.fn.fnamemodify(path ~= '' and path or vim.fn.getcwd(), ':p')
  local root = path:match('^(.*)/scripts/training/')
  if root and root ~= '' then
    return root
  end
  local dir = vim.fn.isdirectory(path) == 1 and path or vim.fn.fnamemodify(path, ':h')
  local git = vim.fn.finddir('.git', dir .. ';')
  if git ~= '' then
    return vim.fn.fnamemodify(git, ':p:h:h')
  end
  return (dir:gsub('/$', ''))
end

-- ---- diagnostics, keymaps, code lens --------------------------------------------------------

-- The first line of a diagnostic with its rule id in front ("R-P10: Tensor parallelism without
-- sequence parallelism"), cut at a word boundary to `width` display cells ("…" marks the cut).
function M.format_diagnostic(d, width)
  local first = (d.message or ''):match('^[^\n]*') or ''
  local text = d.code and (tostring(d.code) .. ': ' .. first) or first
  width = math.max(width or 80, 12)
  if vim.fn.strdisplaywidth(text) <= width then
    return text
  end
  local n = vim.fn.strchars(text)
  local cut = text
  while n > 0 and vim.fn.strdisplaywidth(cut) > width - 1 do
    n = n - 1
    cut = vim.fn.strcharpart(text, 0, n)
  end
  -- Keep the cut when it falls between two words, else drop the partial word (unless that
  -- leaves less than half the room: one very long word is cut where it must be).
  local rest = text:sub(#cut + 1, #cut + 1)
  if not rest:match('^%s') then
    local word = cut:match('^(.*%S)%s+%S*$')
    if word and vim.fn.strdisplaywidth(word) >= width / 2 then
      cut = word
    end
  end
  cut = cut:gsub('[%s,;:]+$', '')
  return cut .. '…'
end

-- The cells left for virtual text after the diagnostic's line in the current window.
local function room(d)
  local line = vim.api.nvim_buf_get_lines(d.bufnr or 0, d.lnum, d.lnum + 1, false)[1] or ''
  return vim.api.nvim_win_get_width(0) - vim.fn.strdisplaywidth(line) - 8
end

local function configure_diagnostics(client)
  local ns = vim.lsp.diagnostic.get_namespace(client.id)
  vim.diagnostic.config({
    severity_sort = true,
    signs = true,
    virtual_text = {
      source = false,
      format = function(d)
        return M.format_diagnostic(d, room(d))
      end,
    },
    float = {
      format = function(d)
        return (d.code and (tostring(d.code) .. ': ') or '') .. (d.message or '')
      end,
    },
  }, ns)
end

local KEYMAPS = {
  { 'K', function() vim.lsp.buf.hover() end, 'hover: the flag, variable or finding under the cursor' },
  { 'gd', function() vim.lsp.buf.definition() end, 'definition: the array, its appends, the assignment' },
  { 'gr', function() vim.lsp.buf.references() end, 'references of the variable or array' },
  { '<leader>rn', function() vim.lsp.buf.rename() end, 'rename the variable or array' },
  { '<leader>ca', function() vim.lsp.buf.code_action() end, 'code actions: quick fixes, NOTE, profiling' },
  { '<leader>cl', function() vim.lsp.codelens.run() end, 'run the code lens: the memory budget' },
  { '<leader>pr', function() M.report(0) end, 'the audit report' },
  { '<leader>pm', function() M.memory_budget(0) end, 'the memory budget' },
}

local function set_keymaps(bufnr)
  for _, k in ipairs(KEYMAPS) do
    local existing = vim.fn.maparg(k[1], 'n', false, true)
    if not (type(existing) == 'table' and existing.buffer == 1) then
      vim.keymap.set('n', k[1], k[2], { buffer = bufnr, desc = 'perf-doctor: ' .. k[3] })
    end
  end
end

-- The memory-budget code lens: shown on line 1, refreshed as the buffer changes.
local function code_lens(client, bufnr)
  local caps = client.server_capabilities or client.resolved_capabilities or {}
  if not (caps.codeLensProvider or caps.code_lens) then
    return
  end
  local group = vim.api.nvim_create_augroup('perf_doctor_lens_' .. bufnr, { clear = true })
  vim.api.nvim_create_autocmd({ 'BufEnter', 'CursorHold', 'InsertLeave', 'BufWritePost' }, {
    group = group,
    buffer = bufnr,
    callback = function()
      pcall(vim.lsp.codelens.refresh)
    end,
  })
  pcall(vim.lsp.codelens.refresh)
end

local function on_attach(client, bufnr)
  local cfg = state.config
  if cfg.diagnostics ~= false then
    configure_diagnostics(client)
  end
  if cfg.keymaps ~= false then
    set_keymaps(bufnr)
  end
  code_lens(client, bufnr)
  if cfg.on_attach then
    cfg.on_attach(client, bufnr)
  end
end

local function client_config(root)
  local cfg = state.config
  local caps = vim.lsp.protocol.make_client_capabilities()
  if cfg.capabilities then
    caps = vim.tbl_deep_extend('force', caps, cfg.capabilities)
  end
  caps.window = caps.window or {}
  caps.window.showDocument = { support = false }
  local settings = M.server_settings(cfg.settings)
  return {
    name = NAME,
    cmd = cfg.cmd,
    root_dir = root,
    init_options = settings,
    -- Answers workspace/configuration for the `perfDoctor` section.
    settings = { [SECTION] = settings },
    capabilities = caps,
    on_attach = on_attach,
    flags = cfg.flags,
  }
end

-- Reports a server that could not be started, once per setup() (every script buffer would
-- repeat it otherwise). Returns nil.
local function start_failed(ok, err)
  if not state.start_failed then
    state.start_failed = true
    notify(string.format('cannot start "%s" (%s); set cmd in setup()', table.concat(state.config.cmd, ' '),
      ok and 'not found or not executable' or tostring(err)))
  end
  return nil
end

-- Starts (or reuses) the client for bufnr's repository and attaches it. Returns the client id.
local function attach(bufnr)
  local root = M.root_dir(vim.api.nvim_buf_get_name(bufnr))
  local ok, id = pcall(function()
    if vim.lsp.start then
      return vim.api.nvim_buf_call(bufnr, function()
        return vim.lsp.start(client_config(root))
      end)
    end
    local cid = state.clients[root]
    if not cid or not vim.lsp.get_client_by_id(cid) then
      cid = vim.lsp.start_client(client_config(root))
      state.clients[root] = cid
    end
    if cid then
      vim.lsp.buf_attach_client(bufnr, cid)
    end
    return cid
  end)
  if not ok or not id then
    return start_failed(ok, id)
  end
  state.started[id] = true
  return id
end

function M.attach_if_wanted(bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  for _, c in ipairs(get_clients()) do
    if vim.lsp.buf_is_attached(bufnr, c.id) then
      return c.id
    end
  end
  local want = state.config.attach or M.should_attach
  if want(bufnr) then
    return attach(bufnr)
  end
  return nil
end

-- A running client for bufnr (attached to it, else any perf-doctor client), or a new one that
-- is attached to nothing (for :PerfDoctorTrace from any buffer).
local function client_for(bufnr)
  local any
  for _, c in ipairs(get_clients()) do
    if vim.lsp.buf_is_attached(bufnr, c.id) then
      return c, true
    end
    any = any or c
  end
  if any then
    return any, false
  end
  local cfg = client_config(M.root_dir(vim.api.nvim_buf_get_name(bufnr)))
  local ok, id = pcall(function()
    if vim.fn.has('nvim-0.11') == 1 then
      return vim.lsp.start(cfg, { attach = false })
    end
    return vim.lsp.start_client(cfg)
  end)
  if not ok or not id then
    return start_failed(ok, id)
  end
  state.started[id] = true
  return vim.lsp.get_client_by_id(id), false
end

-- Runs fn(client) once the client has finished initialising (requests sent earlier would be
-- refused by the server).
local function when_ready(client, fn, waited)
  waited = waited or 0
  if client.initialized then
    return fn(client)
  end
  if method(client, 'is_stopped') or waited > 10000 then
    return notify('the server did not start')
  end
  vim.defer_fn(function()
    when_ready(vim.lsp.get_client_by_id(client.id) or client, fn, waited + 20)
  end, 20)
end

-- ---- markdown in scratch buffers -----------------------------------------------------------

-- Shows text in the scratch buffer called `name` (reused if it exists), in a split unless a
-- window already shows it. Returns the buffer.
function M.show_markdown(name, text)
  local buf = state.scratch[name]
  if not (buf and vim.api.nvim_buf_is_valid(buf)) then
    buf = vim.api.nvim_create_buf(false, true)
    vim.api.nvim_buf_set_name(buf, name)
    state.scratch[name] = buf
  end
  local lines = vim.split(text, '\n', { plain = true })
  if lines[#lines] == '' then
    table.remove(lines)
  end
  vim.bo[buf].modifiable = true
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].modifiable = false
  vim.bo[buf].modified = false
  vim.bo[buf].bufhidden = 'hide'
  vim.bo[buf].swapfile = false
  vim.bo[buf].filetype = 'markdown'
  local win = vim.fn.bufwinid(buf)
  if win == -1 then
    vim.cmd('botright split')
    vim.api.nvim_win_set_buf(0, buf)
  else
    vim.api.nvim_set_current_win(win)
  end
  return buf
end

-- workspace/executeCommand with `args`; on_result(result) on success, errors are notified.
local function request(bufnr, command, args, on_result)
  local client = client_for(bufnr)
  if not client then
    return
  end
  when_ready(client, function(c)
    method(c, 'request', 'workspace/executeCommand', { command = command, arguments = args }, function(err, result)
      if err then
        return notify(err.message or vim.inspect(err))
      end
      on_result(result)
    end, bufnr)
  end)
end

local function execute(bufnr, command, args, title, done)
  request(bufnr, command, type(args) == 'table' and args or { args }, function(result)
    if type(result) ~= 'table' or type(result.markdown) ~= 'string' then
      return notify(command .. ': the server answered without markdown')
    end
    local buf = M.show_markdown(title, result.markdown)
    if done then
      done(buf)
    end
  end)
end

-- A trace file or folder argument as an absolute path, or nil (notified) when there is none.
local function trace_path(path, usage)
  if type(path) ~= 'string' or path == '' then
    return notify('usage: ' .. usage)
  end
  local abs = vim.fn.fnamemodify(vim.fn.expand(path), ':p'):gsub('/$', '')
  if vim.fn.filereadable(abs) == 0 and vim.fn.isdirectory(abs) == 0 then
    return notify('no such trace file or folder: ' .. abs)
  end
  return abs
end

-- Summarises a trace file or folder in a scratch buffer. done(bufnr) is called after.
function M.trace(path, done)
  local abs = trace_path(path, ':PerfDoctorTrace {trace file or folder}')
  if abs then
    execute(vim.api.nvim_get_current_buf(), 'perfDoctor.traceSummary', abs, 'perf-doctor://trace/' .. abs, done)
  end
end

-- Links a trace to the current script (path nil or '' unlinks): its measures become evidence on
-- the findings. done(result) is called with the server's answer.
function M.link_trace(path, done)
  local bufnr = vim.api.nvim_get_current_buf()
  local client, attached = client_for(bufnr)
  if not client then
    return
  end
  if not attached then
    return notify('open a training launch script first')
  end
  local abs = ''
  if path and path ~= '' then
    abs = trace_path(path, ':PerfDoctorLinkTrace {trace file or folder}')
    if not abs then
      return
    end
  end
  request(bufnr, 'perfDoctor.linkTrace', { vim.uri_from_bufnr(bufnr), abs }, function(result)
    -- A trace of another job (result.mismatch) is linked but backs no finding: the server says
    -- so itself (window/showMessage, a warning), so nothing is added here.
    local mismatch = type(result) == 'table' and type(result.mismatch) == 'string' and result.mismatch ~= ''
    if not mismatch then
      notify(abs ~= '' and ('findings now carry what ' .. abs .. ' measured') or 'trace unlinked', vim.log.levels.INFO)
    end
    if done then
      done(result)
    end
  end)
end

-- Before / after: the comparison of two traces in a scratch buffer.
function M.compare(before, after, done)
  local usage = ':PerfDoctorCompare {before} {after}'
  local b = trace_path(before, usage)
  local a = b and trace_path(after, usage)
  if a then
    execute(vim.api.nvim_get_current_buf(), 'perfDoctor.compareTraces', { b, a }, 'perf-doctor://compare/' .. b .. '..' .. a, done)
  end
end

-- The audit report of a script buffer (its current text when the server has it open, else the
-- file on disk) in a scratch buffer.
function M.report(bufnr, done)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  local name = vim.api.nvim_buf_get_name(bufnr)
  local client, attached = client_for(bufnr)
  if not client then
    return
  end
  local argument
  if attached then
    argument = vim.uri_from_bufnr(bufnr)
  elseif name ~= '' then
    argument = vim.fn.fnamemodify(name, ':p')
  else
    return notify('save the script first: perf-doctor reports on files')
  end
  execute(bufnr, 'perfDoctor.report', argument, 'perf-doctor://report/' .. (name ~= '' and name or tostring(bufnr)), done)
end

-- The memory budget's breakdown (what the code lens opens) in a scratch buffer.
function M.memory_budget(bufnr, done)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  local client, attached = client_for(bufnr)
  if not client then
    return
  end
  if not attached then
    return notify('open a training launch script first')
  end
  local name = vim.api.nvim_buf_get_name(bufnr)
  execute(bufnr, 'perfDoctor.memoryBudget', vim.uri_from_bufnr(bufnr), 'perf-doctor://memory/' .. (name ~= '' and name or tostring(bufnr)), done)
end

-- Replaces the settings and sends them to every running client.
function M.set_settings(settings)
  state.config.settings = settings or {}
  local s, problems = M.server_settings(state.config.settings)
  for _, p in ipairs(problems) do
    notify('settings: ' .. p, vim.log.levels.WARN)
  end
  for _, c in ipairs(get_clients()) do
    c.config.settings = { [SECTION] = s }
    method(c, 'notify', 'workspace/didChangeConfiguration', { settings = { [SECTION] = s } })
  end
end

-- ---- setup ---------------------------------------------------------------------------------

function M.setup(opts)
  local previous = state.config
  state.config = vim.tbl_deep_extend('force', vim.deepcopy(defaults), opts or {})
  -- Lists are replaced, not merged index by index: cmd = { '/x/perf-doctor', 'lsp' } and
  -- filetypes = { 'sh' } are taken as given.
  for _, k in ipairs({ 'cmd', 'filetypes' }) do
    if opts and opts[k] then
      state.config[k] = opts[k]
    end
  end
  local _, problems = M.server_settings(state.config.settings)
  for _, p in ipairs(problems) do
    notify('settings: ' .. p, vim.log.levels.WARN)
  end
  -- Called again with another command: the servers started with the old one must not be reused.
  if previous and not vim.deep_equal(previous.cmd, state.config.cmd) then
    for _, c in ipairs(get_clients()) do
      method(c, 'stop')
    end
    state.clients, state.started = {}, {}
  end
  state.start_failed = false

  local group = vim.api.nvim_create_augroup('perf_doctor', { clear = true })
  vim.api.nvim_create_autocmd('FileType', {
    group = group,
    pattern = state.config.filetypes,
    callback = function(ev)
      M.attach_if_wanted(ev.buf)
    end,
  })
  -- A script that gained a launch line is attached when it is written.
  vim.api.nvim_create_autocmd('BufWritePost', {
    group = group,
    callback = function(ev)
      if vim.tbl_contains(state.config.filetypes, vim.bo[ev.buf].filetype) then
        M.attach_if_wanted(ev.buf)
      end
    end,
  })

  vim.api.nvim_create_user_command('PerfDoctorTrace', function(c)
    M.trace(c.args)
  end, { nargs = 1, complete = 'file', desc = 'perf-doctor: summarise a PyTorch-profiler trace file or folder' })
  vim.api.nvim_create_user_command('PerfDoctorLinkTrace', function(c)
    M.link_trace(c.args)
  end, { nargs = 1, complete = 'file', desc = 'perf-doctor: back the findings of this script with a trace' })
  vim.api.nvim_create_user_command('PerfDoctorUnlinkTrace', function()
    M.link_trace('')
  end, { nargs = 0, desc = 'perf-doctor: unlink the trace from this script' })
  vim.api.nvim_create_user_command('PerfDoctorCompare', function(c)
    M.compare(c.fargs[1], c.fargs[2])
  end, { nargs = '+', complete = 'file', desc = 'perf-doctor: compare two traces (before, after)' })
  vim.api.nvim_create_user_command('PerfDoctorReport', function()
    M.report(0)
  end, { nargs = 0, desc = 'perf-doctor: audit report of the current script' })
  vim.api.nvim_create_user_command('PerfDoctorMemory', function()
    M.memory_budget(0)
  end, { nargs = 0, desc = 'perf-doctor: memory budget of the current script' })
  -- The code lens' command is the client's: it opens the breakdown here.
  vim.lsp.commands['perfDoctor.showMemoryBudget'] = function(command, ctx)
    local uri = command.arguments and command.arguments[1]
    M.memory_budget(uri and vim.uri_to_bufnr(uri) or (ctx and ctx.bufnr) or 0)
  end

  -- Buffers that were opened before setup().
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(b) and vim.tbl_contains(state.config.filetypes, vim.bo[b].filetype) then
      M.attach_if_wanted(b)
    end
  end
end

return M
