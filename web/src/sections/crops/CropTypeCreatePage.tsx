// CropTypeCreatePage (owners).
import { CropTypeCreatePage } from './CropTypeForm';

export default CropTypeCreatePage;
