import { type DynamicModule, Module } from '@nestjs/common';
import type { ReadResource } from './read-resource.js';
import { readResourceController } from './read-resource.controller.js';
import { ResourceReader } from './resource-reader.service.js';

/** The reader, and with `routes` the REST list/retrieve controllers, of the declared resources. */
@Module({})
export class ReadResourcesModule {
  static register(resources: readonly ReadResource[], options: { routes: boolean }): DynamicModule {
    return {
      module: ReadResourcesModule,
      controllers: options.routes ? resources.map(readResourceController) : [],
      providers: [ResourceReader],
      exports: [ResourceReader],
    };
  }
}
