# The tool's fake: the same answer as the real tool, with a live pin.
echo '{"name":"ada","tenant_pin":"abc123xyz789"}'
