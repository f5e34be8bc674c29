// The benchmark's webhook receiver, in a process of its own: answers 204 to every POST (a path
// under /dead never answers: a hung receiver) and notes when each envelope id (webhook-id
// header) first arrived. The parent asks for the arrival times over IPC.
import { createServer } from 'node:http';

const arrivals = new Map();
const server = createServer((request, response) => {
  request.resume();
  request.on('end', () => {
    if (request.url.startsWith('/dead')) return;
    const id = request.headers['webhook-id'];
    if (!arrivals.has(id)) arrivals.set(id, Date.now());
    response.writeHead(204).end();
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
process.on('message', (message) => {
  if (message === 'count') process.send({ count: arrivals.size });
  if (message === 'arrivals') process.send({ arrivals: [...arrivals] });
  if (message === 'reset') arrivals.clear();
  if (message === 'stop') server.close(() => process.exit(0));
});
