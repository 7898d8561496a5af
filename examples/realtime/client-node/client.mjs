// The Node client of examples/realtime, written with the ws library: it
// opens a session, sends each TEXT as an input.text event, prints every
// message it receives, one a line, then closes the session and prints how
// it ended (the same lines as ../client, the Go client).
//
//   node client.mjs URL TEXT...
//
// The key is $REALTIME_API_KEY. A wss:// session goes through $HTTPS_PROXY
// when it is set (https-proxy-agent: ws has no proxy support of its own),
// trusting the CA Node is given in $NODE_EXTRA_CA_CERTS.
import { randomBytes } from 'node:crypto';
import { checkServerIdentity } from 'node:tls';
import WebSocket from 'ws';
import { HttpsProxyAgent } from 'https-proxy-agent';

const [url, ...texts] = process.argv.slice(2);
if (!url) {
  console.error('usage: node client.mjs URL TEXT...');
  process.exit(2);
}
const options = { headers: { Authorization: `Bearer ${process.env.REALTIME_API_KEY ?? ''}` } };
if (process.env.HTTPS_PROXY && url.startsWith('wss:')) {
  options.agent = new HttpsProxyAgent(process.env.HTTPS_PROXY);
  // The agent's TLS connection has no host to check the certificate
  // against when the URL's host is an IP address (no SNI): check it
  // against the URL's host, as ws does without an agent.
  const host = new URL(url).hostname;
  options.checkServerIdentity = (_, cert) => checkServerIdentity(host, cert);
}

const ws = new WebSocket(url, 'realtime.v1', options);
const inbox = [];
let waiting = null;
ws.on('message', (data, isBinary) => {
  const line = isBinary ? `binary ${data.length} bytes ${JSON.stringify(data.toString('latin1'))}` : `text ${data.toString('utf8')}`;
  console.log(line);
  inbox.push(line);
  if (waiting) waiting();
});
ws.on('unexpected-response', (req, res) => {
  console.error(`client: the server refused the session: ${res.statusCode} ${res.statusMessage}`);
  process.exit(1);
});
ws.on('error', (err) => {
  console.error(`client: ${err.message}`);
  process.exit(1);
});
ws.on('close', (code, reason) => {
  console.log(`close ${code} ${reason.toString()}`);
});

// until resolves once a received line satisfies pred.
async function until(pred) {
  for (;;) {
    const i = inbox.findIndex(pred);
    if (i >= 0) return inbox.splice(0, i + 1);
    await new Promise((resolve) => { waiting = resolve; });
  }
}

await new Promise((resolve) => ws.once('open', resolve));
await until((l) => l.includes('"session.created"'));
for (const text of texts) {
  ws.send(JSON.stringify({ type: 'input.text', event_id: `evt_${randomBytes(5).toString('hex')}`, text }));
  await until((l) => l.includes('"response.done"'));
}
ws.send(JSON.stringify({ type: 'session.close' }));
