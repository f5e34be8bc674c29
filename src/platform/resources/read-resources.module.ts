import { type DynamicModule, Module } from '@nestjs/common';
import type { ReadResource } from './read-resource.js';
import { readResourceController } from './read-resource.controller.js';
import { ResourceReader } from './resource-reader.service.js';

/** The reader, and with `routes` the REST list/retrieve controllers, of the declared resources. */
@Module({})
export class ReadResourcesModule {
  // `any`: each resource has its own entity and DTO types; the declarations themselves are typed.
  static register(resources: readonly ReadResource<any, any>[], options: { routes: boolean }): DynamicModule {
    return {
      module: ReadResourcesModule,
      controllers: options.routes ? resources.map(readResourceController) : [],
      providers: [ResourceReader],
      exports: [ResourceReader],
    };
  }
}
