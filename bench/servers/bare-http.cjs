// REST reference: a bare node:http server answering every request with one fixed JSON body (BENCH_BODY, else a
// small object) after reading the request. Prints its URL on stderr like `vault-tools serve --http`.
const body = process.env.BENCH_BODY || JSON.stringify({ data: { ok: true } });
const length = Buffer.byteLength(body);
require('node:http')
  .createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': length });
      res.end(body);
    });
  })
  .listen(0, '127.0.0.1', function () {
    process.stderr.write(`listening http://127.0.0.1:${this.address().port}\n`);
  });
