import type { Express } from 'express';
import { IncomingMessage, ServerResponse, type ServerOptions } from 'node:http';
import type { Socket } from 'node:net';

/**
 * Request and response classes whose instances are born with express's prototypes. express sets
 * them on every request (`Object.setPrototypeOf` in `app.handle`); on a Node-built object that
 * change cost V8 its inline caches on every object and property the request then touched, about
 * 0.09 ms of CPU per request, three quarters of express's whole cost (docs/benchmarks.md, "The
 * fourteenth session"). Given the prototype it already has, the call changes nothing.
 */
export function messageClassesOf(instance: Express): Pick<ServerOptions, 'IncomingMessage' | 'ServerResponse'> {
  // Node's own classes are plain constructor functions, so a function can run them on its instance.
  function ApiIncomingMessage(this: IncomingMessage, socket: Socket): void {
    IncomingMessage.call(this, socket);
  }
  ApiIncomingMessage.prototype = instance.request;
  function ApiServerResponse(this: ServerResponse, request: IncomingMessage, options: unknown): void {
    (ServerResponse as unknown as (this: ServerResponse, request: IncomingMessage, options: unknown) => void).call(this, request, options);
  }
  ApiServerResponse.prototype = instance.response;
  return { IncomingMessage: ApiIncomingMessage as unknown as typeof IncomingMessage, ServerResponse: ApiServerResponse as unknown as typeof ServerResponse };
}
