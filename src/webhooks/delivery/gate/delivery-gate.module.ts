import { Module } from '@nestjs/common';
import { DeliveryGate } from './delivery-gate.js';

/** The delivery gate, for the worker (taking slots) and the API (replays, circuits on the endpoint record). */
@Module({ providers: [DeliveryGate], exports: [DeliveryGate] })
export class DeliveryGateModule {}
