// Add a crop or an animal (owners).
import { CropCreatePage } from './CropForm';

export default CropCreatePage;
