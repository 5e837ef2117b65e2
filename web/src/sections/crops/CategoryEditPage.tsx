// CategoryEditPage (owners).
import { CategoryEditPage } from './CategoryForm';

export default CategoryEditPage;
