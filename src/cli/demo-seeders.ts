import type { Type } from '@nestjs/common';
import { DocumentsDemoSeeder } from '../documents/documents-demo.seeder.js';
import { FleetDemoSeeder } from '../fleet/fleet-demo.seeder.js';
import { HrDemoSeeder } from '../hr/hr-demo.seeder.js';
import type { DemoSeeder } from '../platform/demo/demo-seeder.js';
import { SupportDemoSeeder } from '../support/support-demo.seeder.js';

/**
 * Every module's demo seeder, run by `seed:demo` in this order: a seeder sees the ids the
 * earlier ones returned (fleet assigns HR's employees as drivers; documents attach to all).
 */
export const DEMO_SEEDERS: Type<DemoSeeder>[] = [HrDemoSeeder, FleetDemoSeeder, SupportDemoSeeder, DocumentsDemoSeeder];
