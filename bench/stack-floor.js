// The stack floor: NestJS on express with none of the service's global pipeline (no guards,
// interceptors, pipes, filters, logging or security headers), answering one constant body (the
// service's answer for the benchmarked invoice, from BENCH_FLOOR_BODY) on the same route. What
// the framework alone costs per request, set up as the service sets it up: its HTTP server's
// requests and responses born with express's prototypes (the service's own `messageClassesOf`),
// and a handler's object answer written by the service's `answerJson`, so that the split's
// "project" share is the project's code, not a framework setting; and with the service's V8
// flags, set before anything else is loaded, as the service sets them (bench/run.js starts it
// with `--import` of `set-v8-flags.js`).
import 'reflect-metadata';
import { Controller, Get, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ExpressAdapter } from '@nestjs/platform-express';
import express from 'express';
import { createServer } from 'node:http';
import { messageClassesOf } from '../dist/platform/http/express-messages.js';
import { answerJson } from '../dist/platform/http/json-answer.js';

const body = JSON.parse(process.env.BENCH_FLOOR_BODY ?? '{}');

class FloorController {
  invoice() {
    return body;
  }
}
Reflect.decorate([Get('v1/invoices/:id')], FloorController.prototype, 'invoice', Object.getOwnPropertyDescriptor(FloorController.prototype, 'invoice'));
Reflect.decorate([Controller()], FloorController);

class FloorModule {}
Reflect.decorate([Module({ controllers: [FloorController] })], FloorModule);

class FloorAdapter extends ExpressAdapter {
  initHttpServer() {
    this.httpServer = createServer(messageClassesOf(this.getInstance()), this.getInstance());
  }

  reply(response, body, statusCode) {
    if (answerJson(response, body, statusCode)) return undefined;
    return super.reply(response, body, statusCode);
  }
}

const app = await NestFactory.create(FloorModule, new FloorAdapter(express()), { logger: false });
await app.listen(Number(process.env.PORT), '127.0.0.1');
process.on('SIGTERM', () => app.close().then(() => process.exit(0)));
