export { PlannerModule } from './planner.module';
