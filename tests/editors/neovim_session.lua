-- A user's session with `rpcsurface lsp` in Neovim's own LSP client (0.7 and newer),
-- headless: open the caller module, mistype the RPC name on a line, wait for the
-- squiggle, type it back, jump to its handler, rename it everywhere and save.
-- Driven by tests/test_lsp_neovim.py through these environment variables.
local root, file = os.getenv("RPCSURFACE_NVIM_ROOT"), os.getenv("RPCSURFACE_NVIM_FILE")
local line, name = tonumber(os.getenv("RPCSURFACE_NVIM_LINE")), os.getenv("RPCSURFACE_NVIM_NAME")
local renamed = os.getenv("RPCSURFACE_NVIM_NEW")
vim.cmd("edit " .. file)
local buf = vim.api.nvim_get_current_buf()
local id = vim.lsp.start_client({ name = "rpcsurface", cmd = { os.getenv("RPCSURFACE_NVIM_CMD"), "lsp" }, root_dir = root })
vim.lsp.buf_attach_client(buf, id)
local function shown()
  local out = {}
  for _, d in ipairs(vim.diagnostic.get(buf)) do table.insert(out, d.code .. "@" .. (d.lnum + 1)) end
  return table.concat(out, ",")
end
local text = vim.api.nvim_buf_get_lines(buf, line - 1, line, false)[1]
local column = text:find(name, 1, true)
local published = 0
local publish = vim.lsp.handlers["textDocument/publishDiagnostics"]
vim.lsp.handlers["textDocument/publishDiagnostics"] = function(...)
  published = published + 1
  return publish(...)
end
vim.wait(30000, function() return published >= 1 end)
print("opened: [" .. shown() .. "]")
vim.api.nvim_buf_set_lines(buf, line - 1, line, false, { (text:gsub(name, name .. "x", 1)) })
vim.wait(30000, function() return published >= 2 end)
print("mistyped: [" .. shown() .. "]")
vim.api.nvim_buf_set_lines(buf, line - 1, line, false, { text })
vim.wait(30000, function() return published >= 3 end)
print("typed back: [" .. shown() .. "]")
local params = { textDocument = { uri = vim.uri_from_bufnr(buf) }, position = { line = line - 1, character = column } }
for _, r in pairs(vim.lsp.buf_request_sync(buf, "textDocument/definition", params, 30000) or {}) do
  for _, loc in ipairs(r.result or {}) do print("definition: " .. vim.uri_to_fname(loc.uri) .. ":" .. (loc.range.start.line + 1)) end
end
params.newName = renamed
for _, r in pairs(vim.lsp.buf_request_sync(buf, "textDocument/rename", params, 30000) or {}) do
  if r.error then print("rename refused: " .. r.error.message) else
    vim.lsp.util.apply_workspace_edit(r.result, "utf-16")
    vim.cmd("silent! wall")
    print("renamed")
  end
end
vim.cmd("qa!")
