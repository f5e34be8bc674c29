// The stack floor: NestJS on express with none of the service's global pipeline (no guards,
// interceptors, pipes, filters, logging or security headers), answering one constant body (the
// service's answer for the benchmarked invoice, from BENCH_FLOOR_BODY) on the same route. What
// the framework alone costs per request. Started by bench/run.js.
import 'reflect-metadata';
import { Controller, Get, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';

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

const app = await NestFactory.create(FloorModule, { logger: false });
await app.listen(Number(process.env.PORT), '127.0.0.1');
process.on('SIGTERM', () => app.close().then(() => process.exit(0)));
