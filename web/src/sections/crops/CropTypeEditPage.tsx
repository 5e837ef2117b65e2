// CropTypeEditPage (owners).
import { CropTypeEditPage } from './CropTypeForm';

export default CropTypeEditPage;
