// Golden-file generator (not run by pytest): prints Weka's discretization cut points at full precision.
//
// Usage: java -cp weka.jar:. WekaDiscretizeGolden BINS FILE.arff [FILE.arff ...]
// For each ARFF (class = last attribute) and each numeric attribute prints tab-separated lines
//   MDL  file  attrIndex  cut bits (hex of Double.doubleToRawLongBits, comma-separated)  bin names ('|'-joined)
//   EF   file  attrIndex  bins  cut bits
// where MDL = weka.filters.supervised.attribute.Discretize with default options (-R first-last) and
// EF = weka.filters.unsupervised.attribute.Discretize -F -B bins -R first-last for each bins in BINS
// (comma-separated). Driven by make_weka_golden.py.
import java.io.BufferedReader;
import java.io.FileReader;

import weka.core.Instances;
import weka.filters.Filter;

public class WekaDiscretizeGolden {
  static String bits(double[] cuts) {
    if (cuts == null) return "";
    StringBuilder sb = new StringBuilder();
    for (int j = 0; j < cuts.length; j++) {
      if (j > 0) sb.append(',');
      sb.append(Long.toHexString(Double.doubleToRawLongBits(cuts[j])));
    }
    return sb.toString();
  }

  /** Runs the filter on data; the output format, or null when Weka cannot build it (its bin names
   * collide at 6 decimals) although the cut points, computed first, are available. */
  static Instances run(Instances data, Filter filter) throws Exception {
    for (int k = 0; k < data.numInstances(); k++) filter.input(data.instance(k));
    try {
      filter.batchFinished();
    } catch (IllegalArgumentException e) {
      return null;
    }
    return filter.getOutputFormat();
  }

  public static void main(String[] args) throws Exception {
    String[] binList = args[0].split(",");
    for (int a = 1; a < args.length; a++) {
      String file = args[a];
      Instances data = new Instances(new BufferedReader(new FileReader(file)));
      data.setClassIndex(data.numAttributes() - 1);

      weka.filters.supervised.attribute.Discretize mdl = new weka.filters.supervised.attribute.Discretize();
      mdl.setInputFormat(data);
      Instances out = run(data, mdl);
      for (int i = 0; i < data.numAttributes(); i++) {
        if (i == data.classIndex() || !data.attribute(i).isNumeric()) continue;
        StringBuilder names = new StringBuilder();
        for (int j = 0; out != null && j < out.attribute(i).numValues(); j++) {
          if (j > 0) names.append('|');
          names.append(out.attribute(i).value(j));
        }
        System.out.println("MDL\t" + file + "\t" + i + "\t" + bits(mdl.getCutPoints(i)) + "\t" + names);
      }

      for (String b : binList) {
        if (b.isEmpty()) continue;
        weka.filters.unsupervised.attribute.Discretize ef = new weka.filters.unsupervised.attribute.Discretize();
        ef.setUseEqualFrequency(true);
        ef.setBins(Integer.parseInt(b));
        ef.setInputFormat(data);
        run(data, ef);
        for (int i = 0; i < data.numAttributes(); i++) {
          if (i == data.classIndex() || !data.attribute(i).isNumeric()) continue;
          System.out.println("EF\t" + file + "\t" + i + "\t" + b + "\t" + bits(ef.getCutPoints(i)));
        }
      }
    }
  }
}
