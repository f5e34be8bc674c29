import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { DemoSeedContext, DemoSeeder } from '../platform/demo/demo-seeder.js';
import { demoDate, demoShift, demoTimeline } from '../platform/demo/demo-timeline.js';
import { type InsertRow, insertRows } from '../platform/demo/insert-rows.js';
import { FuelLog, type FuelLogFuelType } from './fuel-log.entity.js';
import { Vehicle, type VehicleFuelType } from './vehicle.entity.js';
import { WorkOrder, type WorkOrderType } from './work-order.entity.js';

/** Makes and models a European service fleet runs, with their usual fuel. */
const MODELS: readonly { make: string; model: string; fuel: VehicleFuelType }[] = [
  { make: 'Mercedes-Benz', model: 'Sprinter', fuel: 'diesel' },
  { make: 'Mercedes-Benz', model: 'Vito', fuel: 'diesel' },
  { make: 'Mercedes-Benz', model: 'eVito', fuel: 'electric' },
  { make: 'Ford', model: 'Transit', fuel: 'diesel' },
  { make: 'Ford', model: 'Transit Custom', fuel: 'diesel' },
  { make: 'Ford', model: 'E-Transit', fuel: 'electric' },
  { make: 'Volkswagen', model: 'Crafter', fuel: 'diesel' },
  { make: 'Volkswagen', model: 'Caddy', fuel: 'petrol' },
  { make: 'Volkswagen', model: 'ID. Buzz Cargo', fuel: 'electric' },
  { make: 'Renault', model: 'Master', fuel: 'diesel' },
  { make: 'Renault', model: 'Kangoo', fuel: 'petrol' },
  { make: 'Iveco', model: 'Daily', fuel: 'diesel' },
  { make: 'Iveco', model: 'Daily Natural Power', fuel: 'cng' },
  { make: 'Toyota', model: 'Proace', fuel: 'diesel' },
  { make: 'Toyota', model: 'Corolla Touring Sports', fuel: 'hybrid' },
  { make: 'Skoda', model: 'Octavia Combi', fuel: 'petrol' },
  { make: 'Dacia', model: 'Duster', fuel: 'lpg' },
  { make: 'Volvo', model: 'FH 500', fuel: 'diesel' },
];

const WORK_ORDER_TITLES: Record<WorkOrderType, readonly string[]> = {
  preventive: ['Annual service', 'Oil and filter change', '60,000 km service', 'Brake fluid replacement', 'Timing belt replacement'],
  repair: ['Replace front brake pads', 'Repair windscreen chip', 'Replace alternator', 'Fix air conditioning', 'Replace clutch', 'Repair sliding door'],
  inspection: ['Periodic technical inspection', 'Tachograph calibration', 'Emissions test', 'Pre-lease-return inspection'],
  tyres: ['Seasonal tyre change', 'Replace worn rear tyres', 'Puncture repair'],
  recall: ['Manufacturer recall: airbag inflator', 'Manufacturer recall: engine software update'],
};

const STATIONS = ['Aral', 'Shell', 'TotalEnergies', 'Esso', 'BP', 'JET', 'OMV', 'Agip'];

/** Price per litre (per kg for CNG) in major units. */
const PRICE_PER_LITRE: Record<FuelLogFuelType, [number, number]> = {
  diesel: [1.55, 1.95],
  petrol: [1.65, 2.05],
  lpg: [0.85, 1.15],
  cng: [1.1, 1.6],
  adblue: [0.7, 1.3],
};

const VOLUME: Record<FuelLogFuelType, [number, number]> = {
  diesel: [25, 95],
  petrol: [20, 55],
  lpg: [20, 50],
  cng: [8, 25],
  adblue: [5, 20],
};

/** Vehicles, their work orders and fuel logs; drivers are HR's employees when HR ran first. */
@Injectable()
export class FleetDemoSeeder implements DemoSeeder {
  async seed({ data, records, faker, ids = {} }: DemoSeedContext): Promise<Record<string, string[]>> {
    const now = new Date();
    const employees = ids.employee_ids ?? [];
    const { currencies } = await data.tenant();
    const currency = currencies[0];
    const pick = <T>(weights: Record<string, number>) =>
      faker.helpers.weightedArrayElement(Object.entries(weights).map(([value, weight]) => ({ value, weight }))) as T;

    const vins = new Set<string>();
    const vehicles = demoTimeline(faker, records, { days: 730, end: now }).map((createdAt) => {
      const { make, model, fuel } = faker.helpers.arrayElement(MODELS);
      let vin = faker.vehicle.vin();
      while (vins.has(vin)) vin = faker.vehicle.vin();
      vins.add(vin);
      const status = pick<Vehicle['status']>({ active: 16, maintenance: 2, out_of_service: 1, retired: 1 });
      return {
        id: randomUUID(),
        registration: faker.vehicle.vrm(),
        vin,
        make,
        model,
        year: faker.number.int({ min: 2014, max: now.getUTCFullYear() }),
        fuelType: fuel,
        odometerKm: faker.number.int({ min: 2_000, max: 320_000 }),
        status,
        assignedDriverId: status !== 'retired' && employees.length > 0 && faker.datatype.boolean(0.75) ? faker.helpers.arrayElement(employees) : null,
        createdAt,
        updatedAt: faker.datatype.boolean(0.3) ? createdAt : demoShift(createdAt, faker.number.int({ min: 1, max: 60 * 24 * 90 }), now),
      } satisfies InsertRow<Vehicle>;
    });
    /**
     * A vehicle of `candidates` already in the fleet at `at`, so a log never predates its vehicle
     * (when one exists). The timeline is oldest first, so those are a prefix of the list: found by
     * bisection, as filtering all vehicles for each of 2 × `records` logs took 10 s at 10,000.
     */
    const vehicleAt = (at: string, candidates: typeof vehicles) => {
      if (candidates.length === 0) return faker.helpers.arrayElement(vehicles);
      let earlier = 0;
      for (let above = candidates.length; earlier < above; ) {
        const middle = (earlier + above) >>> 1;
        if (candidates[middle].createdAt <= at) earlier = middle + 1;
        else above = middle;
      }
      return candidates[faker.number.int({ max: (earlier || candidates.length) - 1 })];
    };
    const fuelled = vehicles.filter((vehicle) => vehicle.fuelType !== 'electric');

    const [{ count: existingOrders }] = await data.query<{ count: number }>(`SELECT count(*)::int AS count FROM work_orders WHERE tenant_id = $1`);
    const workOrders = demoTimeline(faker, records, { days: 365, end: now }).map((createdAt, index) => {
      const vehicle = vehicleAt(createdAt, vehicles);
      const type = pick<WorkOrderType>({ preventive: 5, repair: 4, inspection: 2, tyres: 2, recall: 1 });
      const status = pick<WorkOrder['status']>({ open: 2, scheduled: 2, in_progress: 2, on_hold: 1, completed: 8, cancelled: 1 });
      const completedAt = status === 'completed' ? demoShift(createdAt, faker.number.int({ min: 120, max: 60 * 24 * 14 }), now) : null;
      const laborCostMinor = faker.number.int({ min: 0, max: 90_000 });
      const partsCostMinor = type === 'inspection' ? 0 : faker.number.int({ min: 0, max: 240_000 });
      return {
        id: randomUUID(),
        number: `WO-${String(existingOrders + index + 1).padStart(6, '0')}`,
        vehicleId: vehicle.id,
        title: faker.helpers.arrayElement(WORK_ORDER_TITLES[type]),
        description: faker.datatype.boolean(0.6) ? faker.lorem.sentences({ min: 1, max: 3 }) : null,
        type,
        status,
        priority: pick<WorkOrder['priority']>({ low: 2, normal: 6, high: 2, urgent: 1 }),
        odometerKm: faker.datatype.boolean(0.85) ? faker.number.int({ min: 0, max: vehicle.odometerKm }) : null,
        dueDate: faker.datatype.boolean(0.7) ? demoDate(createdAt, faker.number.int({ min: 1, max: 30 })) : null,
        vendorName: faker.datatype.boolean(0.6) ? `${faker.company.name()} Autoservice` : null,
        laborCostMinor,
        partsCostMinor,
        totalCostMinor: laborCostMinor + partsCostMinor,
        currency,
        completedAt,
        createdAt,
        updatedAt: completedAt ?? (faker.datatype.boolean(0.5) ? createdAt : demoShift(createdAt, faker.number.int({ min: 5, max: 60 * 24 * 7 }), now)),
      } satisfies InsertRow<WorkOrder>;
    });

    const fuelLogs = demoTimeline(faker, records, { days: 365, end: now }).map((createdAt) => {
      const vehicle = vehicleAt(createdAt, fuelled);
      const source = pick<FuelLog['source']>({ fuel_card: 5, manual: 2, import: 2, detected_refuel: 2 });
      const fuelType = fuelFor(vehicle.fuelType, faker.datatype.boolean(0.1));
      const volumeLitres = faker.number.float({ min: VOLUME[fuelType][0], max: VOLUME[fuelType][1], fractionDigits: 3 });
      const price = faker.number.float({ min: PRICE_PER_LITRE[fuelType][0], max: PRICE_PER_LITRE[fuelType][1], fractionDigits: 3 });
      const located = source === 'fuel_card' || source === 'detected_refuel' || (source === 'import' && faker.datatype.boolean(0.5));
      const driverId =
        vehicle.assignedDriverId ?? (source !== 'detected_refuel' && employees.length > 0 && faker.datatype.boolean(0.6) ? faker.helpers.arrayElement(employees) : null);
      const fuelledBefore = source === 'import' ? faker.number.int({ min: 60 * 24, max: 60 * 24 * 10 }) : faker.number.int({ min: 1, max: 60 * 6 });
      return {
        id: randomUUID(),
        vehicleId: vehicle.id,
        driverId,
        source,
        fuelType,
        volumeLitres,
        costMinor: Math.round(volumeLitres * price * 100),
        currency,
        odometerKm: source === 'import' && faker.datatype.boolean(0.5) ? null : faker.number.int({ min: 0, max: vehicle.odometerKm }),
        stationName: source === 'detected_refuel' ? null : `${faker.helpers.arrayElement(STATIONS)} ${faker.location.city()}`,
        // Germany and its neighbours.
        latitude: located ? faker.location.latitude({ min: 47.3, max: 54.9, precision: 6 }) : null,
        longitude: located ? faker.location.longitude({ min: 5.9, max: 15.0, precision: 6 }) : null,
        fuelledAt: demoShift(createdAt, -fuelledBefore, now),
        createdAt,
        updatedAt: faker.datatype.boolean(0.8) ? createdAt : demoShift(createdAt, faker.number.int({ min: 5, max: 60 * 24 * 3 }), now),
      } satisfies InsertRow<FuelLog>;
    });

    await insertRows(data, Vehicle, vehicles);
    await insertRows(data, WorkOrder, workOrders);
    await insertRows(data, FuelLog, fuelLogs);
    return {
      vehicle_ids: vehicles.map((vehicle) => vehicle.id),
      work_order_ids: workOrders.map((order) => order.id),
      fuel_log_ids: fuelLogs.map((log) => log.id),
    };
  }
}

function fuelFor(vehicleFuel: VehicleFuelType, adblue: boolean): FuelLogFuelType {
  switch (vehicleFuel) {
    case 'diesel':
      return adblue ? 'adblue' : 'diesel';
    case 'lpg':
    case 'cng':
      return vehicleFuel;
    default:
      return 'petrol';
  }
}
