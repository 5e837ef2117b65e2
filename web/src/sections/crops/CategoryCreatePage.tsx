// CategoryCreatePage (owners).
import { CategoryCreatePage } from './CategoryForm';

export default CategoryCreatePage;
